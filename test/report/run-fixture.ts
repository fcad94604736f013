// A saved run as `agent research --json` prints it, with every kind of content the HTML page must handle:
// a report with sections, a table, code, nested lists, a quote, an image, 40 sources (one titled with
// markup, one with a javascript: location), evidence for citations, and sentences flagged by both checks.

export const XSS_TITLE = '<img src=x onerror=alert(1)>';

const report = `# Refunds and approvals at Acme

## Summary

Support agents may refund up to **$50** without approval [1]. Team leads approve up to $500 [2, 3].
Anything above needs the finance desk <script>alert("report")</script> [4].

## Limits by role

| Role | Limit | Approver |
| --- | ---: | :---: |
| Agent | $50 | none [1] |
| Lead | $500 | lead [2] |
| Manager | $5,000 | finance [40] |

## How a refund is filed

1. Open the ticket.
   - Check the order date [5].
     - Orders older than 90 days need a lead [6].
   - Attach the receipt.
2. File it with the script:

\`\`\`ts
const refund = await file({ amount: 50, currency: 'USD' }); // [7] is not a citation here
\`\`\`

> Refunds are processed within 5 business days [8].

![Refund flow](https://example.com/flow.png)

Refunds over $10,000 are approved by the CEO [9].

## Gaps and caveats

The sources do not say who approves refunds in other currencies; see [the policy](https://example.com/policy) and [x](javascript:alert(2)).
`;

const sources = Array.from({ length: 40 }, (_, i) => {
  const n = i + 1;
  if (n === 3)
    return {
      n,
      title: XSS_TITLE,
      location: 'https://evil.example/page',
      kind: 'web',
      read: 'read',
      readAt: '2026-11-02T10:00:00.000Z',
    };
  if (n === 4)
    return {
      n,
      title: 'A page with a script link',
      location: 'javascript:alert(3)',
      kind: 'web',
      read: 'snippet',
    };
  if (n % 2 === 0)
    return {
      n,
      title: `Policy page ${n}`,
      location: `https://docs.example.com/policy/${n}?a=1&b=2`,
      kind: 'web',
      read: 'read',
      readAt: '2026-11-02T10:00:00.000Z',
    };
  return {
    n,
    title: `Handbook section ${n}`,
    location: `content/handbook/section-${n}.md`,
    kind: 'document',
    read: n === 5 ? 'excerpts' : 'read',
  };
});

export function savedRun(): Record<string, unknown> {
  return {
    id: 7,
    question: 'How do refunds, approvals and escalations fit together?',
    mode: 'model',
    answer: report,
    sources,
    citations: { cited: [1, 2, 3, 4, 5, 6, 8, 9, 40], dangling: [], uncited: [] },
    grounding: {
      checked: 9,
      unsupported: [
        { sentence: 'Refunds over $10,000 are approved by the CEO [9].', cites: [9], missing: ['$10,000'] },
      ],
    },
    evidence: [
      {
        sentence: 'Support agents may refund up to **$50** without approval [1].',
        cite: 1,
        quote: 'Agents can refund up to $50 on their own.',
        where: 'Refunds › Limits',
        url: null,
        score: 0.91,
      },
      {
        sentence: 'Team leads approve up to $500 [2, 3].',
        cite: 2,
        quote: 'A team lead approves refunds up to $500.',
        where: 'Approvals',
        url: 'https://docs.example.com/policy/2#:~:text=A%20team%20lead,to%20%24500',
        score: 0.88,
      },
      {
        sentence: 'Refunds are processed within 5 business days [8].',
        cite: 8,
        quote: 'Processing takes <b>five</b> business days.',
        where: 'page 4',
        url: 'javascript:alert(4)',
        score: 0.7,
      },
    ],
    verification: [
      {
        sentence: 'Support agents may refund up to **$50** without approval [1].',
        verdict: 'supported',
        reason: '',
      },
      {
        sentence: 'Team leads approve up to $500 [2, 3].',
        verdict: 'partial',
        reason: 'Source [3] says nothing about team leads.',
      },
      {
        sentence: 'Anything above needs the finance desk <script>alert("report")</script> [4].',
        verdict: 'unsupported',
        reason: 'No source mentions a finance desk <script>.',
      },
    ],
    usage: {
      calls: 6,
      inputTokens: 12000,
      outputTokens: 900,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      costUsd: 0.0312,
    },
    format: 'report',
    settings: { depth: 1, breadth: 3, perSearch: 2, maxSources: 40, report: true },
    models: ['claude-haiku-5-5', 'claude-sonnet-5'],
    rounds: 1,
    truncated: false,
    createdAt: '2026-11-02T10:04:00.000Z',
  };
}
