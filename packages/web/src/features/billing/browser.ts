/** Leaving the app for another page (the hosted checkout); one seam tests can watch. */
export const browser = {
  assign(url: string): void {
    window.location.assign(url);
  },
};
