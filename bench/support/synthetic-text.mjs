// Synthetic text for the index benches: a seeded generator, a vocabulary of made-up words drawn with a
// Zipf-like skew (so posting lists have realistic sizes), and sentences of them with a figure each.

export function syntheticText(seed, size = 5000) {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const syllables = 'ba ce di fo gu ka le mi no pu ra se ti vo zu an el in or un'.split(' ');
  const vocabulary = Array.from({ length: size }, (_, i) => {
    let w = '';
    for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length)) w += syllables[n % syllables.length];
    return w;
  });
  const word = () =>
    vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length * random() ** 3))];
  const sentence = () =>
    `The ${word()} ${word()} rule covers ${word()} and ${word()} for every ${word()} over $${Math.floor(random() * 5000)}.`;
  return { random, word, sentence };
}
