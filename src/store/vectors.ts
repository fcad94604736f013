// Vectors as the stores keep them, compactly. Every vector is made unit length (cosine is then a dot
// product), folded to at most 512 dimensions and kept as int8 components (times 127, rounded): what
// candidates are ranked by. Folding adds dimension i, with a fixed pseudo-random sign, into i mod 512:
// a sparse random projection, which keeps cosine similarity within a few hundredths. Models of 512
// dimensions or fewer (text-embedding-3 asked for 512, say) are not folded at all.
// The signs of those int8 components, one bit each (64 bytes), are scanned by Hamming distance to find
// the candidates: a few milliseconds for 100,000 passages. So 1,536 dimensions take 576 bytes, not the
// 6,144 of float32. PostgreSQL keeps the same int8 components (bytea) and the same signs as pgvector's
// bit(512) (db/vectors.sql).

export const FOLDED_DIMENSIONS = 512;

/** A fixed ±1 per dimension (a hash of its index), the same in every process and version. */
const sign = (i: number): number => {
  let h = Math.imul(i + 1, 2654435761) >>> 0;
  h ^= h >>> 15;
  return (Math.imul(h, 2246822519) >>> 0) & 1 ? 1 : -1;
};

/** sign(i) for every dimension a model has had so far, computed once rather than per vector. */
let signs = new Float64Array(0);
const signsFor = (dims: number): Float64Array => {
  if (signs.length < dims) signs = Float64Array.from({ length: dims }, (_, i) => sign(i));
  return signs;
};

/** Bytes of one vector's sign bits: whole 32-bit words, so that a scan reads them as such. */
export const bitBytes = (dims: number): number => Math.ceil(dims / 32) * 4;

/** The folded vector, reused: compact() runs once per passage, and allocating it cost as much as folding. */
const folded = new Float64Array(FOLDED_DIMENSIONS);

/**
 * Folds `vector` into `folded` (copied as it is when it has no more than FOLDED_DIMENSIONS); how many of
 * `folded`'s components it filled, and the sum of their squares. One pass over the model's dimensions.
 */
function foldInto(vector: ArrayLike<number>): { dims: number; squares: number } {
  const n = vector.length;
  let squares = 0;
  if (n <= FOLDED_DIMENSIONS) {
    for (let i = 0; i < n; i++) {
      const x = vector[i]!;
      folded[i] = x;
      squares += x * x;
    }
    return { dims: n, squares };
  }
  // Dimension i goes into i mod FOLDED_DIMENSIONS: each folded component summed in a register from
  // the model's dimensions j, j + 512, … (not added into memory block by block).
  const s = signsFor(n);
  for (let j = 0; j < FOLDED_DIMENSIONS; j++) {
    let x = 0;
    for (let i = j; i < n; i += FOLDED_DIMENSIONS) x += s[i]! * vector[i]!;
    folded[j] = x;
    squares += x * x;
  }
  return { dims: FOLDED_DIMENSIONS, squares };
}

/**
 * A vector's stored forms, views of one buffer: `int8`, its folded unit form as int8
 * (components times 127, rounded), and `bits`, the signs of those int8 components (bit i of byte i >> 3
 * set where component i is positive). The vector need not be unit length: folding is linear. A vector
 * that comes straight from the model is still in the processor's cache.
 */
export function compact(vector: ArrayLike<number>): { int8: Buffer; bits: Buffer } {
  const { dims, squares } = foldInto(vector);
  // 1 / the length (1 for a zero vector), times 127.
  const scale = 127 / (Math.sqrt(squares) || 1);
  const out = Buffer.allocUnsafe(dims + bitBytes(dims));
  const int8 = new Int8Array(out.buffer, out.byteOffset, dims);
  // Without a branch on the component's value: half of them are negative, at random, and a mispredicted
  // branch per component cost more than the rest of the work (Math.round is one too). No clamp either:
  // a unit vector's components times 127 are within ±127 (to rounding error far below 0.5).
  for (let j = 0; j < dims; j++) {
    // Math.round(y) = floor(y + 0.5), and y + 128.5 is positive for |y| ≤ 127, so | 0 floors it.
    int8[j] = ((folded[j]! * scale + 128.5) | 0) - 128;
  }
  const bits = out.subarray(dims);
  packSigns(int8, bits);
  return { int8: out.subarray(0, dims), bits };
}

/** Vectors' compact() forms in one buffer of their own (moved, not copied, to another thread), and back. */
export function joinCompacts(vectors: { int8: Uint8Array; bits: Uint8Array }[]): {
  bytes: Uint8Array;
  dims: Uint16Array;
} {
  const dims = Uint16Array.from(vectors, (v) => v.int8.length);
  const bytes = new Uint8Array(vectors.reduce((n, v) => n + v.int8.length + v.bits.length, 0));
  let o = 0;
  for (const v of vectors) {
    bytes.set(v.int8, o);
    bytes.set(v.bits, o + v.int8.length);
    o += v.int8.length + v.bits.length;
  }
  return { bytes, dims };
}

export function splitCompacts(bytes: Uint8Array, dims: Uint16Array): { int8: Buffer; bits: Buffer }[] {
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: { int8: Buffer; bits: Buffer }[] = [];
  let o = 0;
  for (const d of dims) {
    const end = o + d + bitBytes(d);
    out.push({ int8: all.subarray(o, o + d), bits: all.subarray(o + d, end) });
    o = end;
  }
  return out;
}

/** Cosine of two int8 vectors (0 where either is zero): what candidates are ranked by. */
export function cosineInt8(a: Int8Array, b: Int8Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return aa && bb ? dot / Math.sqrt(aa * bb) : 0;
}

/** signBits of a stored int8 vector: the bits compact() gave it. */
export function signBits(int8: Int8Array): Uint8Array {
  const out = new Uint8Array(bitBytes(int8.length));
  packSigns(int8, out);
  return out;
}

/**
 * Sets bit i of `out` (byte i >> 3) where int8[i] is positive, clears the rest of `out`. Without a branch
 * on a component: the sign bit of -x is 1 exactly when x > 0.
 */
function packSigns(int8: Int8Array, out: Uint8Array): void {
  out.fill(0);
  // A byte's bits gathered in a register and stored once, not read and written back for each bit.
  let byte = 0;
  for (let i = 0; i < int8.length; i++) {
    byte |= (-int8[i]! >>> 31) << (i & 7);
    if ((i & 7) === 7) {
      out[i >> 3] = byte;
      byte = 0;
    }
  }
  if (int8.length & 7) out[int8.length >> 3] = byte;
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
  // Read as words: in place where its bytes are aligned to them, else from a copy.
  const aligned = query.byteOffset % 4 === 0 ? query : Uint8Array.from(query);
  const q = new Uint32Array(aligned.buffer, aligned.byteOffset, words);
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
