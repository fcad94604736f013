// Database URLs as they may be shown, and the mistakes in them worth a message of their own. No driver is
// loaded here: the SQLite path uses it too (a scheme typo must not become a file named after the URL).

/** `scheme://` at the start: a URL, never a file path. */
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

export const isPostgresUrl = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target);

/** The URL's scheme, when it starts with `scheme://`. */
export const urlScheme = (target: string): string | undefined => SCHEME.exec(target)?.[1];

/**
 * The user-and-password part and where it ends: everything before the last `@` that comes before the
 * query (`?name=`), so an unencoded `/`, `@` or `#` in a password is still found and hidden.
 */
function userinfo(url: string): { start: number; end: number } | undefined {
  const scheme = SCHEME.exec(url);
  if (!scheme) return undefined;
  const start = scheme[0].length;
  const query = url.slice(start).search(/\?[\w.-]+=/);
  const head = query < 0 ? url.slice(start) : url.slice(start, start + query);
  const at = head.lastIndexOf('@');
  return at < 0 ? undefined : { start, end: start + at };
}

/** The URL with its password (and any password= parameter) replaced by `replacement`, or left out. */
function hidePassword(url: string, replacement: string): string {
  const shown = replacement
    ? url.replace(/([?&]password=)[^&#]*/gi, `$1${replacement}`)
    : url.replace(/([?&])password=[^&#]*&?/gi, '$1').replace(/[?&]$/, '');
  const info = userinfo(shown);
  if (!info) return shown;
  const colon = shown.slice(info.start, info.end).indexOf(':');
  if (colon < 0) return shown;
  const cut = info.start + colon;
  return `${shown.slice(0, cut)}${replacement ? `:${replacement}` : ''}${shown.slice(info.end)}`;
}

/** A URL as it may be shown in a message: its password replaced by ***. */
export const maskPassword = (url: string): string => hidePassword(url, '***');

/** A URL as a location (`agent db status`): its password left out. */
export const withoutPassword = (url: string): string => hidePassword(url, '');

/**
 * What is wrong with the user name or password of a URL, when they hold characters that must be
 * percent-encoded: without encoding, `p@ss/w0rd#x` would be read as another host, path or fragment.
 */
export function unencodedUserinfo(url: string): string | undefined {
  const info = userinfo(url);
  if (!info) return undefined;
  const text = url.slice(info.start, info.end);
  if (!/[/@#?]|%(?![0-9a-f]{2})/i.test(text)) return undefined;
  return `the user name or password in the database URL ${maskPassword(url)} holds characters that must be percent-encoded (/ as %2F, @ as %40, # as %23, ? as %3F, % as %25, and : in a user name as %3A); encode them (encodeURIComponent in JavaScript, urllib.parse.quote in Python), or leave the password out of the URL and set PGPASSWORD`;
}
