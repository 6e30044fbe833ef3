/** One attempt the stand-in webhook receiver (test/helpers/webhook-receiver.ts) got: shared by the receiver, in Node, and the tests, in workerd. */
export type ReceivedHook = {
  webhookId: string;
  timestamp: string;
  signature: string;
  verified: boolean;
  answered: number;
  type?: string;
  data?: any;
  body: string;
  at: number;
  /** The number of the connection it came on. */
  socket: number;
};
