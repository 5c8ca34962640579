/**
 * Serialization of octagons to JSON text and back (APRON's `serialize_raw` /
 * `deserialize_raw`, portable), and a hash of the set of points (APRON's `hash`).
 * @module
 */
import { OctagonError } from '../../errors';
import { type Bounds, exactBounds, f64Bounds } from '../../numbers/bounds';
import { Rational } from '../../numbers/rational';
import type { OctagonKind } from '../constraints';
import { halfSize } from '../layout';
import { Octagon } from '../octagon';

/** The JSON form of an octagon: its half matrix as built, bounds as exact rational text (`inf` for +∞). */
export interface SerializedOctagon {
  readonly format: 'gpumorph-octagon';
  readonly version: 1;
  readonly engine: 'exact' | 'f64';
  readonly kind: OctagonKind;
  readonly dim: number;
  /** The integer variables of a mixed (`real`) octagon, or null. */
  readonly integers: readonly number[] | null;
  /** The `2n(n+1)` cells of the half matrix as built, or `null` when known empty. */
  readonly cells: readonly string[] | null;
}

/**
 * The octagon as JSON text: the matrix as built, every bound as its exact value, so
 * {@link deserializeOctagon} gives back the same matrix cell for cell (f64 bounds included).
 *
 * @example
 * ```ts
 * const text = serializeOctagon(o);
 * deserializeOctagon(text).equals(o); // true (same engine and kind)
 * ```
 */
export function serializeOctagon<T>(o: Octagon<T>): string {
  const m = o.rawMatrix();
  const B = o.bounds;
  const cells = m
    ? Array.from({ length: m.length }, (_, p) =>
        B.isInf(m[p] as T) ? 'inf' : B.toRational(m[p] as T).toString(),
      )
    : null;
  const out: SerializedOctagon = {
    format: 'gpumorph-octagon',
    version: 1,
    engine: o.engine,
    kind: o.kind,
    dim: o.dim,
    integers: o.integers ? [...o.integers.keys()].filter((v) => o.integers?.[v] === 1) : null,
    cells,
  };
  return JSON.stringify(out);
}

/**
 * Reads the text of {@link serializeOctagon}. Throws an {@link OctagonError} naming what is
 * wrong for text that is not such an octagon (the size is checked before anything is allocated).
 *
 * @example
 * ```ts
 * deserializeOctagon('{"format":"gpumorph-octagon","version":1,"engine":"exact","kind":"int","dim":1,"cells":["0","inf","inf","0"]}').isTop(); // true
 * ```
 */
export function deserializeOctagon(text: string): Octagon<Rational> | Octagon<number> {
  let data: SerializedOctagon;
  try {
    data = JSON.parse(text) as SerializedOctagon;
  } catch (cause) {
    throw new OctagonError('serialized octagon: not JSON', { cause });
  }
  const bad = (why: string): never => {
    throw new OctagonError(`serialized octagon: ${why}`);
  };
  if (typeof data !== 'object' || data === null || data.format !== 'gpumorph-octagon')
    bad('not a gpumorph-octagon');
  if (data.version !== 1) bad(`unknown version ${String(data.version)}`);
  if (data.engine !== 'exact' && data.engine !== 'f64') bad(`unknown engine ${String(data.engine)}`);
  if (data.kind !== 'int' && data.kind !== 'real') bad(`unknown kind ${String(data.kind)}`);
  if (!Number.isSafeInteger(data.dim) || data.dim < 0) bad(`bad dimension ${String(data.dim)}`);
  const ints = data.integers ?? null;
  if (
    ints !== null &&
    (data.kind !== 'real' ||
      !Array.isArray(ints) ||
      ints.some((v) => !Number.isInteger(v) || v < 0 || v >= data.dim))
  )
    bad(`bad integer variables ${JSON.stringify(ints)}`);
  if (data.cells !== null && (!Array.isArray(data.cells) || data.cells.length !== halfSize(data.dim)))
    bad(`${data.dim} variables need ${halfSize(data.dim)} cells`);
  return data.engine === 'exact' ? build(exactBounds, data) : build(f64Bounds, data);
}

function build<T>(B: Bounds<T>, data: SerializedOctagon): Octagon<T> {
  let flags: Uint8Array | null = null;
  if (data.integers) {
    flags = new Uint8Array(data.dim);
    for (const v of data.integers) flags[v] = 1;
  }
  if (data.cells === null) return new Octagon(B, data.kind, data.dim, null, true, flags);
  const m = B.alloc(data.cells.length);
  data.cells.forEach((c, p) => {
    if (c === 'inf') return;
    let r: Rational;
    try {
      r = Rational.parse(String(c));
    } catch (cause) {
      throw new OctagonError(`serialized octagon: cell ${p} is not a number: ${String(c)}`, { cause });
    }
    if (r.isInf) throw new OctagonError(`serialized octagon: cell ${p} is not finite: ${String(c)}`);
    const v = B.fromRational(r);
    if (!B.toRational(v).eq(r))
      throw new OctagonError(
        `serialized octagon: cell ${p} (${String(c)}) is not a bound of the ${B.engine} engine`,
      );
    m[p] = v;
  });
  // the closure is recomputed when an operator needs it
  return new Octagon(B, data.kind, data.dim, m, false, flags);
}

/**
 * A 32-bit hash of the set of points (FNV-1a over the closed matrix): equal octagons of one
 * engine and kind have equal hashes, whatever their matrices as built (APRON's `hash`).
 *
 * @example
 * ```ts
 * hashOctagon(a) === hashOctagon(a.close()); // true
 * ```
 */
export function hashOctagon<T>(o: Octagon<T>): number {
  let h = 0x811c9dc5;
  const mix = (x: number) => {
    h ^= x & 0xff;
    h = Math.imul(h, 0x01000193);
  };
  const text = (s: string) => {
    for (let k = 0; k < s.length; k++) mix(s.charCodeAt(k));
    mix(0);
  };
  text(`${o.engine}/${o.kind}/${o.dim}/${String(o.integers)}`);
  const m = o.closedMatrix();
  if (!m) {
    text('empty');
    return h >>> 0;
  }
  if (m instanceof Float64Array) {
    const bytes = new Uint8Array(m.buffer, m.byteOffset, m.byteLength);
    for (let p = 0; p < m.length; p++) {
      if (Object.is(m[p], -0)) for (let k = 0; k < 8; k++) mix(0);
      else for (let k = 0; k < 8; k++) mix(bytes[8 * p + k] as number);
    }
  } else {
    const B = o.bounds;
    for (let p = 0; p < m.length; p++) text(B.isInf(m[p] as T) ? 'inf' : B.toRational(m[p] as T).toString());
  }
  return h >>> 0;
}
