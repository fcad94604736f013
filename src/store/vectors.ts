// Vectors as the stores keep them, compactly. Every vector is made unit length (cosine is then a dot
// product), and kept twice over, small:
// - its signs, one bit a dimension (192 bytes for 1,536 dimensions): a scan of a folder's vectors by
//   Hamming distance takes a few tens of milliseconds for 100,000 passages and finds the candidates;
// - int8 components (times 127, rounded) of the vector folded to at most 512 dimensions, which the
//   candidates are ranked by. Folding adds dimension i, with a fixed pseudo-random sign, into i mod 512:
//   a sparse random projection, which keeps cosine similarity within a few hundredths. Models of 512
//   dimensions or fewer (text-embedding-3 asked for 512, say) are not folded at all.
// So 1,536 dimensions take 704 bytes, not the 6,144 of float32.

export const FOLDED_DIMENSIONS = 512;

/** The vector scaled to length 1 (a zero vector stays zero), as float32. */
export function unit(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const out = new Float32Array(vector.length);
  scaleInto(out, vector, sum);
  return out;
}

/** `out` = `vector` made unit length, `sum` being its squared length. */
function scaleInto(out: Float32Array, vector: ArrayLike<number>, sum: number): void {
  const scale = 1 / (Math.sqrt(sum) || 1);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! * scale;
}

/** A fixed ±1 per dimension (a hash of its index), the same in every process and version. */
const sign = (i: number): number => {
  let h = Math.imul(i + 1, 2654435761) >>> 0;
  h ^= h >>> 15;
  return (Math.imul(h, 2246822519) >>> 0) & 1 ? 1 : -1;
};

/** sign(i) for every dimension a model has had so far, computed once rather than per vector. */
let signs = new Float32Array(0);
const signsFor = (dims: number): Float32Array => {
  if (signs.length < dims) signs = Float32Array.from({ length: dims }, (_, i) => sign(i));
  return signs;
};

/** The vector folded to FOLDED_DIMENSIONS (unchanged when it has no more), made unit length again. */
export function fold(vector: Float32Array): Float32Array {
  const n = vector.length;
  if (n <= FOLDED_DIMENSIONS) return vector;
  const s = signsFor(n);
  const out = new Float32Array(FOLDED_DIMENSIONS);
  // Dimension i goes into i mod FOLDED_DIMENSIONS: block by block, without a division per dimension.
  for (let base = 0; base < n; base += FOLDED_DIMENSIONS) {
    const end = Math.min(FOLDED_DIMENSIONS, n - base);
    for (let j = 0; j < end; j++) out[j]! += s[base + j]! * vector[base + j]!;
  }
  let sum = 0;
  for (let j = 0; j < FOLDED_DIMENSIONS; j++) sum += out[j]! * out[j]!;
  scaleInto(out, out, sum);
  return out;
}

/** A unit vector as int8: components times 127, rounded. */
export function toInt8(vector: Float32Array): Int8Array {
  const out = new Int8Array(vector.length);
  for (let i = 0; i < vector.length; i++)
    out[i] = Math.max(-127, Math.min(127, Math.round(vector[i]! * 127)));
  return out;
}

/** Bytes of one vector's sign bits: whole 32-bit words, so that a scan reads them as such. */
export const bitBytes = (dims: number): number => Math.ceil(dims / 32) * 4;

/** The signs of the vector, bit i of byte i >> 3 set where component i is positive. */
export function signBits(vector: Float32Array): Uint8Array {
  const out = new Uint8Array(bitBytes(vector.length));
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

const popcount = (x: number): number => {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
};

/**
 * The `take` entries of packed sign bits nearest to `query` by Hamming distance, as indexes, nearest
 * first. `packed` holds whole vectors of bitBytes(dims) each.
 */
export function nearestBits(packed: Uint8Array, query: Uint8Array, take: number): number[] {
  const words = query.length / 4;
  const data = new Uint32Array(packed.buffer, packed.byteOffset, packed.byteLength / 4);
  const q = new Uint32Array(query.buffer, query.byteOffset, words);
  const n = data.length / words;
  // Distances are small integers: bucket the entries by distance, then read the buckets in order.
  const distance = new Uint16Array(n);
  const counts = new Uint32Array(words * 32 + 1);
  for (let i = 0, o = 0; i < n; i++) {
    let d = 0;
    for (let w = 0; w < words; w++, o++) d += popcount(data[o]! ^ q[w]!);
    distance[i] = d;
    counts[d]!++;
  }
  let limit = 0;
  for (let seen = 0; limit < counts.length && seen < take; limit++) seen += counts[limit]!;
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (distance[i]! < limit) out.push(i);
  return out.sort((a, b) => distance[a]! - distance[b]! || a - b).slice(0, take);
}
