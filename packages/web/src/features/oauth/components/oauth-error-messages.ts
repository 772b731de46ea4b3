/**
 * What Engram's OAuth error page says for each error code the server sends
 * the browser there with (`/oauth/error?error=<code>`, docs/connect.md). The
 * words are the web app's own: the page never shows text from the request,
 * which anyone can write into a link.
 */
export interface OAuthErrorMessage {
  title: string;
  body: string;
}

const START_AGAIN = 'Go back to the app and connect again.';

export const OAUTH_ERROR_MESSAGES: Readonly<Record<string, OAuthErrorMessage>> = {
  invalid_request: {
    title: 'The app’s request is not valid',
    body: `The app sent Engram a sign-in request it cannot accept (something is missing, repeated or too long). ${START_AGAIN} If it happens again, the app may not support Engram yet.`,
  },
  invalid_client: {
    title: 'Engram does not know this app',
    body: `The app is not registered with Engram, or its description could not be read. ${START_AGAIN}`,
  },
  invalid_redirect_uri: {
    title: 'The app’s return address is not registered',
    body: 'The app asked Engram to send you back to an address it did not register, so Engram stopped here. Nothing was shared.',
  },
  invalid_target: {
    title: 'The app asked for an address Engram does not serve',
    body: `Apps connect to Engram’s MCP address (/mcp, or /mcp/<space> for one space). Check the address you gave the app, then connect again.`,
  },
  invalid_scope: {
    title: 'The app asked for permissions Engram does not give',
    body: `Engram lets apps read and change your memory, nothing else. ${START_AGAIN}`,
  },
  unsupported_response_type: {
    title: 'The app asked to sign in a way Engram does not support',
    body: `Engram supports the authorization code flow with PKCE only. ${START_AGAIN}`,
  },
  unauthorized_client: {
    title: 'This app may not connect this way',
    body: `The app is registered for another kind of sign-in. ${START_AGAIN}`,
  },
  login_required: {
    title: 'You need to sign in',
    body: `The app asked to connect without showing you Engram; Engram always asks you first. ${START_AGAIN}`,
  },
  consent_required: {
    title: 'Engram must ask you first',
    body: `The app asked to connect without asking you; Engram always asks. ${START_AGAIN}`,
  },
  interaction_required: {
    title: 'Engram must ask you first',
    body: `The app asked to connect without asking you; Engram always asks. ${START_AGAIN}`,
  },
  access_denied: {
    title: 'The request was declined',
    body: 'Nothing was shared with the app.',
  },
  not_answered_here: {
    title: 'This request was not answered in this browser',
    body: `The link was opened in another browser, or used twice. ${START_AGAIN}`,
  },
  temporarily_unavailable: {
    title: 'Engram is busy',
    body: `Engram could not answer the app just now. Wait a moment, then ${START_AGAIN.toLowerCase()}`,
  },
};

export const UNKNOWN_OAUTH_ERROR: OAuthErrorMessage = {
  title: 'The app could not be connected',
  body: `Something went wrong while connecting the app to Engram. ${START_AGAIN}`,
};

/** The words for an error code; any code not in the table gets the general ones. */
export function oauthErrorMessage(code: string | null): OAuthErrorMessage {
  return (
    (code !== null && Object.hasOwn(OAUTH_ERROR_MESSAGES, code)
      ? OAUTH_ERROR_MESSAGES[code]
      : undefined) ?? UNKNOWN_OAUTH_ERROR
  );
}
