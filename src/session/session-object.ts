/**
 * One session's Durable Object, as the runtime sees it: a class whose module imports nothing but
 * types, so that starting an isolate costs what the platform's own floor costs (bench/PROFILE.md,
 * "Cold start"). The session itself (`session.ts`, and the stores, the loop and the schemas it brings) is
 * loaded in the constructor, under `blockConcurrencyWhile`: no request, socket message or alarm is
 * delivered before it is there. Each method hands its call on, unchanged.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import type { Session } from './session';

export class SessionObject extends DurableObject<Env> {
  /** Set before the first event is delivered (the constructor blocks them until then). */
  private session!: Session;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const { Session } = await import('./session');
      this.session = new Session(ctx, env);
      await this.session.wake();
    });
  }

  startTurn(...args: Parameters<Session['startTurn']>) { return this.session.startTurn(...args); }
  startAguiRun(...args: Parameters<Session['startAguiRun']>) { return this.session.startAguiRun(...args); }
  startHarnessRun(...args: Parameters<Session['startHarnessRun']>) { return this.session.startHarnessRun(...args); }
  startEventsRun(...args: Parameters<Session['startEventsRun']>) { return this.session.startEventsRun(...args); }
  runSubagent(...args: Parameters<Session['runSubagent']>) { return this.session.runSubagent(...args); }
  followTurn(...args: Parameters<Session['followTurn']>) { return this.session.followTurn(...args); }
  listTurns(...args: Parameters<Session['listTurns']>) { return this.session.listTurns(...args); }
  cancelTurn(...args: Parameters<Session['cancelTurn']>) { return this.session.cancelTurn(...args); }
  getSession(...args: Parameters<Session['getSession']>) { return this.session.getSession(...args); }
  getMessages(...args: Parameters<Session['getMessages']>) { return this.session.getMessages(...args); }
  getBranches() { return this.session.getBranches(); }
  activateBranch(...args: Parameters<Session['activateBranch']>) { return this.session.activateBranch(...args); }
  exportBranch(...args: Parameters<Session['exportBranch']>) { return this.session.exportBranch(...args); }
  importFork(...args: Parameters<Session['importFork']>) { return this.session.importFork(...args); }
  deleteSession() { return this.session.deleteSession(); }
  getTurn(...args: Parameters<Session['getTurn']>) { return this.session.getTurn(...args); }
  getDeliveries() { return this.session.getDeliveries(); }
  createSchedule(...args: Parameters<Session['createSchedule']>) { return this.session.createSchedule(...args); }
  getSchedules() { return this.session.getSchedules(); }
  deleteSchedule(...args: Parameters<Session['deleteSchedule']>) { return this.session.deleteSchedule(...args); }
  exportForUser(...args: Parameters<Session['exportForUser']>) { return this.session.exportForUser(...args); }
  eraseForUser() { return this.session.eraseForUser(); }

  override fetch(request: Request) { return this.session.fetch(request); }
  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer) { return this.session.webSocketMessage(socket, message); }
  override webSocketClose(socket: WebSocket, code: number, reason: string) { return this.session.webSocketClose(socket, code, reason); }
  override webSocketError(socket: WebSocket, error: unknown) { return this.session.webSocketError(socket, error); }
  override alarm() { return this.session.alarm(); }
}
