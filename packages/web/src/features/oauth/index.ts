export { ConsentPage } from './components/consent-page';
export { OAuthErrorPage } from './components/oauth-error-page';
