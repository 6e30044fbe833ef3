/**
 * The A2A versions the door speaks (docs/a2a.md, "Both versions"), each with its methods, and which
 * one a request asks for. A2A v1.0 has a client name its version in `A2A-Version`, and a request
 * that names none is v0.3's, whose clients never sent it; the door also takes a v1.0 method without
 * it, as it always has (the two versions' method names never meet, so the name says which).
 */
import { RpcError } from '../api/json-rpc';
import { quoted } from '../lib/quoted';

export type A2aVersion = '1.0' | '0.3';

/** What a method asks the door to do, in either version's words. */
export type A2aOperation = 'send' | 'stream' | 'get' | 'list' | 'cancel' | 'subscribe' | 'push' | 'extended-card';

const METHODS: Record<A2aVersion, Record<string, A2aOperation>> = {
  '1.0': {
    SendMessage: 'send',
    SendStreamingMessage: 'stream',
    GetTask: 'get',
    ListTasks: 'list',
    CancelTask: 'cancel',
    SubscribeToTask: 'subscribe',
    CreateTaskPushNotificationConfig: 'push',
    GetTaskPushNotificationConfig: 'push',
    ListTaskPushNotificationConfigs: 'push',
    DeleteTaskPushNotificationConfig: 'push',
    GetExtendedAgentCard: 'extended-card',
  },
  '0.3': {
    'message/send': 'send',
    'message/stream': 'stream',
    'tasks/get': 'get',
    'tasks/cancel': 'cancel',
    'tasks/resubscribe': 'subscribe',
    'tasks/pushNotificationConfig/set': 'push',
    'tasks/pushNotificationConfig/get': 'push',
    'tasks/pushNotificationConfig/list': 'push',
    'tasks/pushNotificationConfig/delete': 'push',
    'agent/getAuthenticatedExtendedCard': 'extended-card',
  },
};

/** A2A v1.0's code for a version the server does not speak. */
const VERSION_NOT_SUPPORTED = -32009;

/**
 * The version `A2A-Version` names (its major and minor: `0.3.0` is 0.3), `undefined` for none, or
 * the header's value when it names one the door does not speak.
 */
export function namedVersion(header: string | null): A2aVersion | undefined | { unsupported: string } {
  const value = header?.trim() ?? '';
  if (value === '') return undefined;
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(value);
  const version = match ? `${Number(match[1])}.${Number(match[2])}` : '';
  return version === '1.0' || version === '0.3' ? version : { unsupported: value };
}

/** The request's version and what its method asks; a version the door does not speak is refused (`-32009`). */
export function operationOf(header: string | null, method: string): { version: A2aVersion; operation: A2aOperation | undefined } {
  const named = namedVersion(header);
  if (typeof named === 'object') {
    throw new RpcError(VERSION_NOT_SUPPORTED, `A2A version ${quoted(named.unsupported)} is not supported. Supported versions: 1.0, 0.3.`);
  }
  const version = named ?? (Object.hasOwn(METHODS['0.3'], method) ? '0.3' : '1.0');
  return { version, operation: Object.hasOwn(METHODS[version], method) ? METHODS[version][method] : undefined };
}
