import fc from 'fast-check';
import { expect, it } from 'vitest';
import { bitBytes, compact, FOLDED_DIMENSIONS, signBits } from '../../src/store/vectors.js';

// compact() is written without a branch on a component's value (for speed on dense vectors); its
// result must be exactly what the definition says, for any model size and any values.

/** The definition, written plainly: fold with the fixed signs, unit length, times 127, Math.round. */
function reference(vector: number[]): { int8: number[]; bits: Uint8Array } {
  const sign = (i: number) => {
    let h = Math.imul(i + 1, 2654435761) >>> 0;
    h ^= h >>> 15;
    return (Math.imul(h, 2246822519) >>> 0) & 1 ? 1 : -1;
  };
  const dims = Math.min(vector.length, FOLDED_DIMENSIONS);
  const folded: number[] = new Array(dims).fill(0);
  const fold = vector.length > FOLDED_DIMENSIONS;
  for (const [i, x] of vector.entries()) folded[i % FOLDED_DIMENSIONS]! += fold ? sign(i) * x : x;
  const length = Math.sqrt(folded.reduce((n, x) => n + x * x, 0)) || 1;
  const int8 = folded.map((x) => Math.max(-127, Math.min(127, Math.round((x * 127) / length))) + 0);
  const bits = new Uint8Array(bitBytes(dims));
  for (const [i, x] of int8.entries()) if (x > 0) bits[i >> 3]! |= 1 << (i & 7);
  return { int8, bits };
}

it('gives the int8 components and sign bits the definition gives, for any vector', () => {
  const component = fc.oneof(
    fc.double({ min: -10, max: 10, noNaN: true }),
    fc.constantFrom(0, 0.5, -0.5, 1e-9, -1e-9),
  );
  fc.assert(
    fc.property(
      fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom(511, 512, 513, 768, 1536, 3072)),
      fc.array(component, { minLength: 1, maxLength: 3072 }),
      (dims, values) => {
        const vector = Array.from({ length: dims }, (_, i) => values[i % values.length]!);
        const got = compact(Float32Array.from(vector));
        const want = reference(Array.from(Float32Array.from(vector)));
        expect([...new Int8Array(got.int8.buffer, got.int8.byteOffset, got.int8.length)]).toEqual(want.int8);
        expect(got.bits.length).toBe(bitBytes(want.int8.length));
        expect([...got.bits]).toEqual([...want.bits]);
        expect([...signBits(Int8Array.from(want.int8))]).toEqual([...want.bits]);
      },
    ),
    { numRuns: 300 },
  );
});
