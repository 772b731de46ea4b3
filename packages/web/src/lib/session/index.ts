export { SessionProvider, useSession, type SessionStatus } from './session';
