export { logout } from './logout';
export { SessionProvider, useSession, type SessionStatus } from './session';
export { CURRENT_USER_KEY, type SessionUser } from './current-user';
