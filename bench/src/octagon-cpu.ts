import {
  closeF64,
  closeMatrix,
  createMatrixPool,
  createOctagonDomain,
  f64Bounds,
  halfSize,
  Octagon,
} from '@gpumorph/octagon';
import { anchor, fmt, type OctagonContext, randomBlockHalf, timeCpu } from './octagon-common';

/** Runs of the dense CPU closure: about a second at 1,024 variables, so 3 runs there and 1 beyond. */
function closureTrials(c: OctagonContext, n: number): number {
  return n >= 2048 ? 1 : n >= 1024 ? Math.min(c.trials, 3) : c.trials;
}

/** The f64 closure of `half` (and on the worker threads), checked; returns the closed matrix. */
export function cpuClosureRows(c: OctagonContext, n: number, half: Float64Array): Float64Array {
  c.log(`octagon: f64 closure of ${n} variables`);
  let cpuClosed: Float64Array = half;
  const t = timeCpu(
    () => {
      const m = Float64Array.from(half);
      closeF64(m, n, true);
      cpuClosed = m;
    },
    closureTrials(c, n),
    n < 1024,
  );
  c.rows.push({
    case: 'closure (int, tight)',
    size: `${n} vars`,
    engine: 'cpu f64',
    medianMs: t.ms,
    runs: t.runs,
    method: 'cpu',
    metrics: { 'Grelax/s': (8 * n * n * n) / (t.ms * 1e6) },
  });
  anchor(c, n, 'closure, 1 thread', t.ms);
  const threads = c.threads;
  if (threads && n >= 256) {
    c.log(`octagon: f64 closure of ${n} variables on ${threads.threads} threads`);
    let threaded: Float64Array | null = null;
    const tt = timeCpu(
      () => {
        const m = Float64Array.from(half);
        closeF64(m, n, true, { threads });
        threaded = m;
      },
      closureTrials(c, n),
      n < 1024,
    );
    c.rows.push({
      case: 'closure (int, tight)',
      size: `${n} vars`,
      engine: `cpu f64, ${threads.threads} threads`,
      medianMs: tt.ms,
      runs: tt.runs,
      method: 'cpu',
      metrics: { 'Grelax/s': (8 * n * n * n) / (tt.ms * 1e6) },
    });
    anchor(c, n, `closure, ${threads.threads} threads`, tt.ms);
    const closed = cpuClosed;
    const same = threaded !== null && (threaded as Float64Array).every((v, p) => v === closed[p]);
    c.notes.push(
      `closure of ${n} vars on ${threads.threads} threads ${same ? 'equals' : 'DIFFERS FROM'} the single-threaded closure.`,
    );
  }
  if (n <= 32) {
    const X = createOctagonDomain({ engine: 'exact', kind: 'int' });
    const exact = new Octagon(
      X.bounds,
      'int',
      n,
      Array.from(half, (v) => X.bounds.fromRational(f64Bounds.toRational(v))),
      false,
    ).closedMatrix();
    const same =
      exact !== null && Array.from(cpuClosed).every((v, p) => f64Bounds.toRational(v).eq(exact[p] as never));
    c.notes.push(
      `closure of ${n} vars: the f64 engine ${same ? 'equals' : 'DIFFERS FROM'} the exact engine.`,
    );
  }
  return cpuClosed;
}

/** A row of the f64 engine at `n` variables. */
function cpuRow(
  c: OctagonContext,
  n: number,
  name: string,
  t: { ms: number; runs: number },
  metrics: Record<string, number> = {},
) {
  c.rows.push({
    case: name,
    size: `${n} vars`,
    engine: 'cpu f64',
    medianMs: t.ms,
    runs: t.runs,
    method: 'cpu',
    metrics,
  });
}

/**
 * The f64 engine's union, intersection and widening, plain (a new matrix) and into a matrix of a
 * pool (no allocation, SIMD in place), then the assignment and the guard.
 */
function cpuDenseOperatorRows(c: OctagonContext, n: number, closedHalf: Float64Array): void {
  const F = createOctagonDomain({ engine: 'f64', kind: 'int' });
  const a = new Octagon(F.bounds, 'int', n, closedHalf, true);
  const b = new Octagon(
    F.bounds,
    'int',
    n,
    Float64Array.from(closedHalf, (v) => (v === 0 ? 0 : v + 1)),
    true,
  );
  // The same operators writing into matrices of a pool (its arguments' matrices in it too).
  const pool = createMatrixPool(n, { capacity: 3 });
  const pa = a.join(a, { into: pool.acquire() });
  const pb = b.join(b, { into: pool.acquire() });
  const dst = pool.acquire();
  // the same into a pool whose memory the closure's worker threads share (each operator split among them)
  const threaded = c.threads ? createMatrixPool(n, { capacity: 3, threads: c.threads }) : null;
  const T = threaded?.threads ?? 1;
  const [ta, tb, td] = threaded
    ? [a.join(a, { into: threaded.acquire() }), b.join(b, { into: threaded.acquire() }), threaded.acquire()]
    : [pa, pb, dst];
  const onThreads: [string, string | null, () => unknown][] =
    T > 1
      ? [
          [
            `union into a pool matrix, ${T} threads`,
            `join into, ${T} threads`,
            () => ta.join(tb, { into: td }),
          ],
          [
            `intersection into a pool matrix, ${T} threads`,
            `meet into, ${T} threads`,
            () => ta.meet(tb, { into: td }),
          ],
          [`widening into a pool matrix, ${T} threads`, null, () => ta.widen(tb, [], { into: td })],
        ]
      : [];
  const ops: [string, string | null, () => unknown][] = [
    ['union', 'join', () => a.join(b)],
    ['union into a pool matrix', 'join into', () => pa.join(pb, { into: dst })],
    ['intersection', 'meet', () => a.meet(b)],
    ['intersection into a pool matrix', 'meet into', () => pa.meet(pb, { into: dst })],
    ['widening', null, () => a.widen(b)],
    ['widening into a pool matrix', null, () => pa.widen(pb, [], { into: dst })],
    ...onThreads,
    ['assignment x := x + 1', null, () => a.assignVar(n >> 1, 1, n >> 1, 1)],
    ['guard x0 − x1 ≤ 5', null, () => a.meet(a).guard({ i: 0, si: 1, j: 1, sj: -1, c: 5 })],
  ];
  for (const [name, key, work] of ops) {
    const t = timeCpu(work, n >= 1024 ? Math.max(c.trials, 9) : c.trials, true);
    // Three matrices of 8-byte cells read or written.
    const elementwise = !name.startsWith('assign') && !name.startsWith('guard');
    cpuRow(c, n, name, t, elementwise ? { 'GB/s': (24 * halfSize(n)) / (t.ms * 1e6) } : {});
    if (key) anchor(c, n, key, t.ms);
  }
  const joined = a.join(b);
  const pooledJoin = pa.join(pb, { into: dst });
  c.notes.push(
    `union of ${n} vars into a pool matrix ${pooledJoin.equals(joined) && pooledJoin.rawMatrix() === dst ? 'equals' : 'DIFFERS FROM'} the plain union.`,
  );
  if (T > 1) {
    const split = ta.join(tb, { into: td });
    c.notes.push(
      `union of ${n} vars into a pool matrix on ${T} threads ${split.equals(joined) && split.rawMatrix() === td ? 'equals' : 'DIFFERS FROM'} the plain union.`,
    );
  }
}

/**
 * Blocks of 8 related variables. A decomposed octagon knows its blocks (its operators keep them):
 * its closure closes each block alone. The whole-matrix row adds the cells between blocks (what a
 * dense reader gets); the scan row is the closure of a matrix whose blocks are unknown (found by a
 * scan, then the dense strengthening).
 */
function cpuSparseClosureRows(c: OctagonContext, n: number): void {
  const F = createOctagonDomain({ engine: 'f64', kind: 'int' });
  const blocks = randomBlockHalf(n, 8, 0xb10c + n);
  const partition = Int32Array.from({ length: n }, (_, v) => v - (v % 8));
  const decomposed = () => new Octagon(F.bounds, 'int', n, blocks, false, null, partition);
  const sparse: [string, () => unknown][] = [
    ['closure, blocks of 8 (int, decomposed octagon)', () => decomposed().isEmpty()],
    ['closure, blocks of 8, whole matrix written', () => decomposed().closedMatrix()],
    [
      'closure, blocks of 8, blocks found by a scan',
      () => closeMatrix(Float64Array.from(blocks), n, f64Bounds, true),
    ],
  ];
  for (const [name, work] of sparse) {
    const t = timeCpu(work, n >= 1024 ? Math.max(c.trials, 9) : c.trials, true);
    if (name.includes('decomposed')) anchor(c, n, 'sparse closure (blocks of 8)', t.ms);
    cpuRow(c, n, name, t);
  }
  if (n <= 512) {
    const dense = Float64Array.from(blocks);
    const nonEmpty = closeF64(dense, n, true);
    const whole = decomposed().closedMatrix() as Float64Array | null;
    const same = nonEmpty && whole?.every((v, p) => v === dense[p]) === true;
    c.notes.push(
      `closure of ${n} vars in blocks of 8: the decomposed octagon's closure (whole matrix) ${same ? 'equals' : 'DIFFERS FROM'} the dense closure.`,
    );
  }
}

/** The f64 engine's other operators, the decomposed closure of blocks and the emptiness test. */
export function cpuOperatorRows(
  c: OctagonContext,
  n: number,
  half: Float64Array,
  cpuClosed: Float64Array | null,
): void {
  cpuDenseOperatorRows(c, n, cpuClosed ?? Float64Array.from(half));
  cpuSparseClosureRows(c, n);
  if (n < 2048) {
    // (At 2,048 and above the emptiness test is the closure row: not timed twice.)
    const F = createOctagonDomain({ engine: 'f64', kind: 'int' });
    cpuRow(
      c,
      n,
      'emptiness (closure)',
      timeCpu(
        () => new Octagon(F.bounds, 'int', n, Float64Array.from(half), false).isEmpty(),
        n >= 1024 ? 1 : c.trials,
        false,
      ),
    );
  }
}

/** ELINA with AVX on the generator (its second measurement), ms. */
const ELINA_AVX: Record<number, Record<string, number>> = {
  512: { closure: 116, join: 0.15, meet: 0.15 },
  1024: { closure: 1250 },
};

/** One line per size with the figures the ELINA anchors line up with (same generator). */
export function anchorNotes(c: OctagonContext): string[] {
  return [...c.anchors].map(([n, figures]) => {
    const elina = ELINA_AVX[n] ?? {};
    const cells = [...figures].map(([what, ms]) => {
      const ref = elina[what.split(/[ ,]/)[0] as string];
      const ratio =
        ref !== undefined && !what.startsWith('sparse')
          ? ` (ELINA AVX ${fmt(ref)} ms: ${(ref / ms).toFixed(2)}x)`
          : '';
      return `${what} ${fmt(ms)} ms${ratio}`;
    });
    return `gpumorph CPU f64 at ${n} vars, for the anchors — ${cells.join('; ')}.`;
  });
}
