// The one rule for a client's name as a user sees it (ClientRegistrationRequest.client_name):
// controls (Cc) and the bidirectional formatting characters cannot be shown as they are, since
// with them `Evil\u202Eelgoog` reads as another name (Unicode Bidirectional Algorithm, UAX #9).
// Registration refuses a name holding one; a name stored before that rule is shown with each
// such character written out as a visible escape, so no page or answer ever lets it act.

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSHOWABLE = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const EACH_UNSHOWABLE = new RegExp(UNSHOWABLE.source, 'g');

/** Whether the name holds a character a user could not be shown as it is. */
export function hasUnshowable(name: string): boolean {
  return UNSHOWABLE.test(name);
}

/** The name as a user is shown it: each unshowable character as `\uXXXX` (`Evil\u202Eelgoog`). */
export function showableClientName(name: string): string {
  return name.replace(EACH_UNSHOWABLE, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}
