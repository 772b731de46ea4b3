/** Leaving the app for the server's redirect back to the client app; one seam tests can watch. */
export const browser = {
  assign(url: string): void {
    window.location.assign(url);
  },
};
