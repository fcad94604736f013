import { describe, expect, it } from 'vitest';
import { normalizeUrl } from '../../../src/web/search/url.js';

describe('normalizeUrl', () => {
  it.each([
    ['drops the fragment', 'https://a.example/page#section-2', 'https://a.example/page'],
    [
      'drops utm_* and click ids, keeping the other parameters in order',
      'https://a.example/p?utm_source=x&id=7&UTM_Medium=y&fbclid=abc&gclid=def&sort=asc',
      'https://a.example/p?id=7&sort=asc',
    ],
    ['drops a query left empty', 'https://a.example/p?utm_campaign=spring', 'https://a.example/p'],
    ['drops an empty query', 'https://a.example/p?', 'https://a.example/p'],
    [
      'drops the trailing slash of a path',
      'https://a.example/docs/refunds/',
      'https://a.example/docs/refunds',
    ],
    ['keeps the bare root', 'https://a.example/', 'https://a.example/'],
    ['gives the bare host its root', 'https://a.example', 'https://a.example/'],
    [
      'lower-cases scheme and host, not the path',
      'HTTPS://Docs.EXAMPLE.com/Refunds',
      'https://docs.example.com/Refunds',
    ],
    ['drops default ports', 'http://a.example:80/x', 'http://a.example/x'],
    ['drops the https default port', 'https://a.example:443/x', 'https://a.example/x'],
    ['keeps other ports', 'https://a.example:8443/x/', 'https://a.example:8443/x'],
    [
      'keeps parameter encoding as it was',
      'https://a.example/s?q=a%20b+c&x=%7C',
      'https://a.example/s?q=a%20b+c&x=%7C',
    ],
    ['does all at once', ' HTTP://A.example:80/a/b/?utm_source=n&k=v#top ', 'http://a.example/a/b?k=v'],
    ['returns an unparseable URL trimmed', '  not a url  ', 'not a url'],
    ['leaves non-web URLs alone', 'mailto:Someone@Example.com', 'mailto:Someone@Example.com'],
  ])('%s', (_what, input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  it('makes the spellings of one page equal and keeps different pages apart', () => {
    const same = [
      'https://a.example/refunds',
      'https://A.example/refunds/',
      'https://a.example:443/refunds#limits',
      'https://a.example/refunds?utm_source=newsletter',
    ];
    expect(new Set(same.map(normalizeUrl)).size).toBe(1);
    const different = [
      'https://a.example/refunds?page=2',
      'http://a.example/refunds',
      'https://a.example/Refunds',
    ];
    expect(new Set([...different, same[0]!].map(normalizeUrl)).size).toBe(4);
  });
});
