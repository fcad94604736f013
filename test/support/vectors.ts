// Generated embedding vectors for the vector stores' tests: seeded, so that a failure can be run again.

/** A small seeded generator (mulberry32) of numbers in [0, 1). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Vectors in clusters (a topic each), as a model's are: a topic's centre plus gaussian noise of `noise`
 * times the centre's spread. Returns a maker of `count` more vectors around the same topics.
 */
export function clustered(
  dims: number,
  next: () => number,
  { topics, noise }: { topics: number; noise: number },
): (count: number) => number[][] {
  const gauss = () => Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next());
  const centres = Array.from({ length: topics }, () => Array.from({ length: dims }, gauss));
  return (count) =>
    Array.from({ length: count }, () =>
      centres[Math.floor(next() * centres.length)]!.map((x) => x + noise * gauss()),
    );
}
