/** What the consent screen says when the server no longer knows the request (404). */
export const EXPIRED_MESSAGE =
  'This sign-in request has expired or is not valid. Go back to your app and connect again.';
