// OLLAMA_HOST read the way Ollama itself reads it (envconfig.Host): `host`, `host:port`, `:port`,
// `http://host:port`, `https://host/prefix`; no scheme means http, and no port means 11434 (80 or 443
// when a scheme is given). Beyond Ollama: a trailing `/v1` (copied from a tool that speaks its OpenAI
// route) is dropped, and a bind-all address (0.0.0.0, ::) is reached at loopback, as `ollama` does.

export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';

/** The server's root URL, without a trailing slash: `/api/chat` and `/api/embed` are appended to it. */
export function ollamaBaseUrl(value: string | undefined): string {
  const s = (value ?? '').trim().replace(/^["']|["']$/g, '');
  if (!s) return OLLAMA_DEFAULT_HOST;
  let scheme = 'http';
  let rest = s;
  let port = '11434';
  const at = s.indexOf('://');
  if (at >= 0) {
    scheme = s.slice(0, at).toLowerCase();
    rest = s.slice(at + 3);
    if (scheme === 'http') port = '80';
    else if (scheme === 'https') port = '443';
  } else if (s === 'ollama.com') {
    return 'https://ollama.com:443';
  }
  const slash = rest.indexOf('/');
  const hostport = slash >= 0 ? rest.slice(0, slash) : rest;
  const path = slash >= 0 ? rest.slice(slash) : '';
  let host = hostport;
  // `[::1]:11434`, `host:port`, `:port`; a bare IPv6 address has colons but no port.
  const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(hostport);
  if (bracketed) {
    host = bracketed[1]!;
    if (bracketed[2]) port = bracketed[2];
  } else if ((hostport.match(/:/g) ?? []).length === 1) {
    const [h, p] = hostport.split(':') as [string, string];
    host = h;
    if (p) port = p;
  }
  const n = Number(port);
  if (!Number.isInteger(n) || n < 0 || n > 65535) port = scheme === 'https' ? '443' : '11434';
  if (!host || host === '0.0.0.0' || host === '::') host = '127.0.0.1';
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const prefix = path.replace(/\/+$/, '').replace(/\/v1$/, '').replace(/\/+$/, '');
  return `${scheme}://${shownHost}:${port}${prefix}`;
}
