// One spelling per page, so that two searches finding the same page read it once.

/** Query parameters that only track the click (campaigns, ad ids) and never change the page. */
const TRACKERS = new Set([
  'fbclid',
  'gclid',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'yclid',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_hsenc',
  '_hsmi',
]);

const isTracker = (name: string): boolean => {
  const key = name.toLowerCase();
  return key.startsWith('utm_') || TRACKERS.has(key);
};

/**
 * The form of a web URL used to tell pages apart: no fragment, no tracking parameters, no trailing slash on
 * the path (the bare root keeps its `/`), scheme and host in lower case, no default port. The remaining
 * query parameters keep their order and encoding: servers may care about either. Anything that is not an
 * http(s) URL comes back trimmed and otherwise untouched.
 */
export function normalizeUrl(url: string): string {
  const trimmed = url.trim();
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return trimmed;
  }
  // The URL parser already lower-cases scheme and host and drops :80 / :443 for http(s).
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return trimmed;
  parsed.hash = '';
  const kept = parsed.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !isTracker(decodeName(pair)));
  parsed.search = kept.length > 0 ? `?${kept.join('&')}` : '';
  if (parsed.pathname.length > 1) parsed.pathname = parsed.pathname.replace(/\/+$/, '') || '/';
  return parsed.href;
}

function decodeName(pair: string): string {
  const name = pair.split('=', 1)[0]!.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
