export { logout } from './logout';
export { SessionProvider, useSession, type SessionStatus } from './session';
export type { SessionUser } from './current-user';
