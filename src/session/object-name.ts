/** Where a session object is named: by its owner and session id (src/users/owner.ts). */
import { ownerOfObjectName } from '../users/owner';

export { ownerOfObjectName, sessionObjectName } from '../users/owner';

/** The user a session object belongs to, read back from its name. */
export function userOfObjectName(name: string | undefined): string {
  return ownerOfObjectName(name).userId;
}
