export { logout } from './logout';
export { SessionProvider, useSession, type SessionStatus } from './session';
