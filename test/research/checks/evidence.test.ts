import { describe, expect, it } from 'vitest';
import { linkTo } from '../../../src/research/checks/evidence/fragment.js';
import { findEvidence, unsupportedClaims } from '../../../src/research/checks/evidence/index.js';
import { locatedSentences, splitSentences } from '../../../src/research/checks/evidence/sentences.js';

const doc = (n: number, text: string, title = `Doc ${n}`) => ({
  n,
  kind: 'document' as const,
  title,
  location: `docs/${n}.md`,
  text,
});
const web = (n: number, text: string, location = 'https://example.com/policy') => ({
  n,
  kind: 'web' as const,
  title: `Guide ${n}`,
  location,
  text,
});

describe('source sentences', () => {
  it('never ends a sentence at an abbreviation or an initial', () => {
    expect(
      splitSentences('Dr. Smith signs off by Sept. 30. The U.S. office, e.g. Boston, agrees. J. Doe too.'),
    ).toEqual(['Dr. Smith signs off by Sept. 30.', 'The U.S. office, e.g. Boston, agrees.', 'J. Doe too.']);
  });

  it('knows the heading path, the PDF page, list items and table rows', () => {
    const text = [
      '# Travel',
      '## Hotels',
      'London hotels are capped at £200 a night.',
      '- Book through the portal.',
      '| City | Cap |',
      '|---|---|',
      '| Paris | €180 |',
      '[Page 4]',
      'Trains are preferred',
      'for journeys under 500 km.',
    ].join('\n');
    const s = locatedSentences(text);
    expect(s.map((x) => [x.text, x.headingPath, x.page])).toEqual([
      ['London hotels are capped at £200 a night.', 'Travel > Hotels', undefined],
      ['Book through the portal.', 'Travel > Hotels', undefined],
      ['City | Cap', 'Travel > Hotels', undefined],
      ['Paris | €180', 'Travel > Hotels', undefined],
      ['Trains are preferred for journeys under 500 km.', 'Travel > Hotels > Page 4', 4],
    ]);
  });
});

describe('text fragments', () => {
  const s = (text: string, cells?: string[]) => ({ text, headingPath: '', ...(cells ? { cells } : {}) });
  it('percent-encodes the directive syntax: dash, ampersand and comma', () => {
    expect(linkTo('https://x.org/a', [s('Fees & taxes, e-bikes: 10%.')])).toBe(
      'https://x.org/a#:~:text=Fees%20%26%20taxes%2C%20e%2Dbikes%3A%2010%25.',
    );
  });
  it('gives a long quote as a start and an end, and keeps a page fragment before the directive', () => {
    const quote = [s('One two three four five six seven eight nine ten eleven twelve.')];
    expect(linkTo('https://x.org/a#top', quote)).toBe(
      'https://x.org/a#top:~:text=One%20two%20three%20four%20five,eight%20nine%20ten%20eleven%20twelve.',
    );
  });
  it('spans a table row from its first cell to its last', () => {
    expect(linkTo('https://x.org/t', [s('Paris | €180', ['Paris', '€180'])])).toBe(
      'https://x.org/t#:~:text=Paris,%E2%82%AC180',
    );
  });
});

// Source sentences and answers that restate them in other words: none may be flagged (≤ 2% is the rule).
const RESTATED: [string, string][] = [
  [
    'A support agent can refund up to $200 without approval.',
    'Support agents may refund as much as $200 with no approval needed',
  ],
  ['Refunds above $200 need a team lead.', 'Any refund over $200 requires sign-off from a team lead'],
  [
    'Trains are preferred for journeys under 500 km.',
    'For trips shorter than 500 km, staff should take the train',
  ],
  ['London hotels are capped at £200 per night.', 'The nightly hotel cap in London is £200'],
  ['Employees accrue 25 days of annual leave.', 'Staff get 25 days of leave a year'],
  ['The office is closed on public holidays.', 'On public holidays the office does not open'],
  [
    'Expense reports must be filed within 30 days of travel.',
    'File your expense report no later than 30 days after the trip',
  ],
  ['Laptops are replaced every four years.', 'The company replaces laptops on a four-year cycle'],
  [
    'Customers can return unused items within 14 days for a full refund.',
    'Unused items returned within 14 days get a full refund',
  ],
  ['The Berlin office opened in March 2021.', 'In March 2021 the company opened its Berlin office'],
  [
    'Remote employees receive a €500 home-office allowance.',
    'People working remotely are given a €500 allowance for the home office',
  ],
  [
    'Business class is allowed on flights longer than 8 hours.',
    'Flights over 8 hours may be booked in business class',
  ],
  [
    'Dr. Lee approves all research budgets above $10,000.',
    'Research budgets over $10,000 need approval from Dr. Lee',
  ],
  ['Passwords must be rotated every 90 days.', 'Every 90 days, passwords have to be changed'],
  [
    'The warranty covers manufacturing defects for two years.',
    'Manufacturing defects are covered by a two-year warranty',
  ],
  [
    'New hires complete security training in their first week.',
    'Security training is done by new hires during week one',
  ],
  ['Meal allowances are $75 per day in New York.', 'In New York the daily meal allowance is $75'],
  ['Contractors are paid within 45 days of invoice.', 'Invoices from contractors are paid within 45 days'],
  ['The data is backed up nightly to a second region.', 'Backups run every night to a second region'],
  ['Parental leave is 16 weeks at full pay.', 'Parents get 16 weeks of leave on full pay'],
  ['Purchases over $5,000 require three quotes.', 'Three quotes are needed for any purchase above $5,000'],
  ['The free plan includes 2 GB of storage.', 'Storage on the free plan is limited to 2 GB'],
  [
    'Support is available 24/7 for enterprise customers.',
    'Enterprise customers get round-the-clock support, 24/7',
  ],
  ['Mileage is reimbursed at 0.45 per km.', 'Staff are reimbursed 0.45 for each km driven'],
  [
    'The API rate limit is 1,000 requests per minute.',
    'Clients may make up to 1000 requests a minute to the API',
  ],
  ['Interns receive a monthly stipend of $2,000.', 'The monthly intern stipend is $2,000'],
  [
    'The Paris team moved to the new building in 2023.',
    'In 2023 the Paris team relocated to the new building',
  ],
  ['Version 3.2 dropped support for Windows 7.', 'Windows 7 is no longer supported as of version 3.2'],
  ['Gifts worth more than $50 must be declared.', 'Any gift valued above $50 has to be declared'],
  ['The board meets four times a year.', 'Board meetings take place four times each year'],
  ['Visitors must sign in at reception.', 'All visitors sign in at the reception desk'],
  ['Overtime is paid at 1.5 times the hourly rate.', 'Overtime pay is 1.5 times the normal hourly rate'],
  [
    'The Tokyo office handles sales for Japan and Korea.',
    'Sales in Japan and Korea are run from the Tokyo office',
  ],
  ['Security incidents must be reported within 24 hours.', 'Report any security incident within 24 hours'],
  [
    'Each team gets a training budget of $1,500 per person.',
    'The training budget is $1,500 for each person on a team',
  ],
  ['Bonuses are paid in December.', 'The bonus is paid out every December'],
  ['Hotel bookings must go through the travel portal.', 'Staff have to book hotels via the travel portal'],
  [
    'The cafeteria serves lunch from 11:30 to 14:00.',
    'Lunch is served in the cafeteria between 11:30 and 14:00',
  ],
  ['Customer data is stored in the EU.', 'All customer data stays stored within the EU'],
  ['The probation period lasts six months.', 'New employees are on probation for six months'],
  [
    'Refund requests are answered within two business days.',
    'Replies to refund requests come within two business days',
  ],
  ['Company cars may not be used for personal trips.', 'Personal trips in a company car are not allowed'],
  ['Annual reviews happen every January.', 'Each January, the annual reviews take place'],
  ['The Zurich branch has 120 employees.', 'There are 120 employees at the Zurich branch'],
  ['Phones are upgraded after 24 months.', 'After 24 months staff may upgrade their phones'],
  ['Conference travel needs approval from a director.', 'A director must approve travel to a conference'],
  ['The library lends books for three weeks.', 'Books from the library can be borrowed for three weeks'],
  ['The premium tier costs $30 per user per month.', 'Premium costs $30 a month for each user'],
  ['Shipping is free on orders over €50.', 'Orders above €50 ship for free'],
  ['The help desk answers tickets within 4 hours.', 'Help desk tickets get an answer within 4 hours'],
];

const FILLER = [
  '# Company handbook',
  'This handbook describes how we work together.',
  'Questions about it go to the people team.',
  'It is reviewed once a year and changes are announced by email.',
].join('\n');

describe('evidence', () => {
  it(`finds the source sentence for every restated claim (${RESTATED.length} cases, no false alarm)`, () => {
    // All the source sentences in one document, so each claim must pick its own out of many.
    const source = doc(1, `${FILLER}\n\n${RESTATED.map(([s]) => s).join('\n\n')}`);
    const answer = RESTATED.map(([, claim]) => `${claim} [1].`).join(' ');
    const evidence = findEvidence(answer, [source]);
    expect(evidence).toHaveLength(RESTATED.length);
    const flagged = unsupportedClaims(evidence);
    expect(flagged.length / RESTATED.length).toBeLessThanOrEqual(0.02);
    const wrongQuote = evidence.filter((e, i) => !e.quote?.includes(RESTATED[i]![0]));
    expect(wrongQuote.map((e) => e.sentence)).toEqual([]);
  });

  it('lists a claim its cited source holds nothing close to, with quote null and score 0', () => {
    const source = doc(1, '# Refunds\n\nA support agent can refund up to $200 without approval.');
    const evidence = findEvidence(
      'Agents refund up to $200 [1]. The office plants are watered on Mondays [1].',
      [source],
    );
    expect(evidence[1]).toEqual({
      sentence: 'The office plants are watered on Mondays [1].',
      cite: 1,
      quote: null,
      where: '',
      url: null,
      score: 0,
    });
    expect(unsupportedClaims(evidence)).toEqual([
      { sentence: 'The office plants are watered on Mondays [1].', cites: [1] },
    ]);
  });

  it('gives one entry per cited source, a heading path, a PDF page and a web link', () => {
    const sources = [
      doc(1, '# Travel\n## Hotels\nLondon hotels are capped at £200 a night.'),
      doc(2, '[Page 1]\nIntro.\n[Page 7]\nHotel rooms in London cost at most £200 per night.', 'Policy PDF'),
      web(3, 'Hotels in London: the cap is £200 a night, taxes included.'),
      doc(4, 'Nothing about hotels here, only trains.'),
    ];
    const evidence = findEvidence('London hotels are capped at £200 a night [1][2][3][4].', sources);
    expect(evidence.map((e) => [e.cite, e.where, e.url])).toEqual([
      [1, 'Travel > Hotels', null],
      [2, 'page 7', null],
      [
        3,
        'Guide 3',
        'https://example.com/policy#:~:text=Hotels%20in%20London%3A%20the%20cap,%C2%A3200%20a%20night%2C%20taxes%20included.',
      ],
      [4, '', null],
    ]);
    expect(evidence[0]!.quote).toBe('London hotels are capped at £200 a night.');
    expect(evidence[0]!.score).toBe(1);
    // Some cited source supports it, so it is not listed as unsupported.
    expect(unsupportedClaims(evidence)).toEqual([]);
  });

  it('joins the neighbouring sentence when the claim draws on both', () => {
    const source = doc(
      1,
      'Refunds are handled by support. An agent may refund up to $200. Above that, a team lead decides within 2 days.',
    );
    const [e] = findEvidence(
      'Agents refund up to $200, and a team lead decides on larger ones within 2 days [1].',
      [source],
    );
    expect(e!.quote).toBe('An agent may refund up to $200. Above that, a team lead decides within 2 days.');
  });

  it('flags claims about something else than the source says', () => {
    const source = doc(1, `${FILLER}\n\n${RESTATED.map(([s]) => s).join('\n\n')}`);
    const offTopic = [
      'The cafeteria is run by an outside caterer',
      'Employees may bring dogs to work on Fridays',
      'The CEO founded the company in a garage',
      'Quarterly revenue grew by 12 percent',
    ];
    const evidence = findEvidence(offTopic.map((c) => `${c} [1].`).join(' '), [source]);
    expect(unsupportedClaims(evidence).map((c) => c.sentence)).toEqual(offTopic.map((c) => `${c} [1].`));
  });

  it('skips a citation that names no source', () => {
    expect(findEvidence('A claim [9].', [doc(1, 'Text.')])).toEqual([]);
  });
});

describe('evidence reads quantities as the grounding check does', () => {
  it('finds the sentence stating a figure the claim writes another way', () => {
    // The other sentence shares more words; only the figure, read as a number, tells them apart.
    const source = doc(
      1,
      'Returned items must be unused items in their box. Items come back within 30 days. ' +
        'The refund fund holds and audits refunds. Its balance is $2,500,000.',
    );
    const [days] = findEvidence('Unused items may be returned within thirty days [1].', [source]);
    expect(days?.quote).toContain('Items come back within 30 days.');
    const [fund] = findEvidence('The refund fund holds $2.5 million [1].', [source]);
    expect(fund?.quote).toContain('Its balance is $2,500,000.');
  });
});
