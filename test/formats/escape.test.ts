import { describe, expect, it } from 'vitest';
import { withoutLinkMarkup } from '../../src/formats/escape.js';
import { checkGrounding } from '../../src/research/checks/grounding/index.js';

// Converted HTML and Word text carries links and footnote marks; checks that compare a source's words
// and figures must see neither the addresses nor the marks.

describe('withoutLinkMarkup', () => {
  it('keeps link texts and drops their addresses, autolinks and footnote marks', () => {
    expect(
      withoutLinkMarkup(
        'See [the policy](https://x.example/p/2019_(v2)) and <https://x.example/7>.[^1]\n\n[^1]: Since 2024.',
      ),
    ).toBe('See [the policy] and  . \n\n : Since 2024.');
    expect(withoutLinkMarkup('Plain text [1] stays.')).toBe('Plain text [1] stays.');
  });

  it('lets the grounding check match a quotation across a link and not a figure in its address', () => {
    const source =
      'Agents may refund up to $200 under [the refund policy](https://shop.example/policy/2019/11) adopted last year.[^1]';
    const answer =
      'Refunds are described as "the refund policy adopted last year" [1]. The policy dates from 2019 [1].';
    const { unsupported } = checkGrounding(answer, [{ n: 1, text: source }]);
    expect(unsupported.map((u) => u.missing)).toEqual([['2019']]);
  });
});
