/**
 * Vectors as the index stores them: int8 components, the float vector scaled
 * so its largest component is ±127 (migration 019). Cosine similarity does
 * not depend on a vector's length, so no scale is kept: the stored vector's
 * norm is taken when it is scored.
 */

/** A float vector to its stored bytes (one signed byte per component). */
export function quantize(vector: ArrayLike<number>): Uint8Array {
  let largest = 0;
  for (let index = 0; index < vector.length; index += 1) {
    largest = Math.max(largest, Math.abs(vector[index]!));
  }
  const bytes = new Int8Array(vector.length);
  if (largest > 0) {
    const scale = 127 / largest;
    for (let index = 0; index < vector.length; index += 1) {
      bytes[index] = Math.round(vector[index]! * scale);
    }
  }
  return new Uint8Array(bytes.buffer);
}

/** The vector scaled to length 1 (a zero vector stays zero). */
export function normalized(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let index = 0; index < vector.length; index += 1) sum += vector[index]! * vector[index]!;
  const result = new Float32Array(vector.length);
  if (sum === 0) return result;
  const inverse = 1 / Math.sqrt(sum);
  for (let index = 0; index < vector.length; index += 1) result[index] = vector[index]! * inverse;
  return result;
}

/**
 * Cosine similarity of a unit-length query and stored int8 components, in
 * [-1, 1]; undefined when their lengths differ or the stored vector is empty
 * (an observation the endpoint refused) or zero.
 */
export function cosine(query: Float32Array, stored: Int8Array): number | undefined {
  if (stored.length === 0 || stored.length !== query.length) return undefined;
  let dot = 0;
  let squares = 0;
  for (let index = 0; index < stored.length; index += 1) {
    const component = stored[index]!;
    dot += query[index]! * component;
    squares += component * component;
  }
  return squares === 0 ? undefined : dot / Math.sqrt(squares);
}

/**
 * Stored components from the base64 text the repository reads them as,
 * decoded into `into` when it is big enough (a scan reuses one buffer: the
 * view is valid until the next call).
 */
export function fromBase64(text: string, into?: Buffer): Int8Array {
  if (into && into.length >= (text.length * 3) / 4) {
    const length = into.write(text, 'base64');
    return new Int8Array(into.buffer, into.byteOffset, length);
  }
  const bytes = Buffer.from(text, 'base64');
  return new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
