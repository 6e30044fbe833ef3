/**
 * One user's Durable Object, as the runtime sees it: a class whose module imports nothing but types,
 * like the session's (`src/session/session-object.ts`, bench/PROFILE.md "Cold start"). The user itself
 * (`user.ts`) is loaded in the constructor, under `blockConcurrencyWhile`, before the first call is
 * delivered; each method hands its call on, unchanged.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import type { User } from './user';

export class UserObject extends DurableObject<Env> {
  /** Set before the first call is delivered (the constructor blocks them until then). */
  private user!: User;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const { User } = await import('./user');
      this.user = new User(ctx, env);
    });
  }

  admit(...args: Parameters<User['admit']>) { return this.user.admit(...args); }
  report(...args: Parameters<User['report']>) { return this.user.report(...args); }
  today() { return this.user.today(); }
  sessions(...args: Parameters<User['sessions']>) { return this.user.sessions(...args); }
  usage(...args: Parameters<User['usage']>) { return this.user.usage(...args); }
  summary() { return this.user.summary(); }
  forgetSessions() { return this.user.forgetSessions(); }
}
