import {
  createElementPool,
  type ElementPool,
  type GpuContext,
  type PoolHeaderState,
  runAllocationProbe,
} from '@gpumorph/gpu-allocator';
import { probeRequests, verifyProbe } from './verify';

/** One line of the doctor's self-check. */
export interface SelfCheckResult {
  readonly name: string;
  readonly pass: boolean;
  /** What was observed (or why it failed). */
  readonly detail: string;
  /** Wall-clock time of the check, kernel compilation and readback included. */
  readonly ms: number;
}

/** Options of {@link runSelfCheck}. */
export interface SelfCheckOptions {
  /** Invocations of the allocation probe (default 4096). */
  readonly invocations?: number;
  /** Most elements one invocation asks for (default 3). */
  readonly maxPerInvocation?: number;
  /** Called before each check starts (progress). */
  readonly onCheck?: (name: string) => void;
}

class CheckFailure extends Error {}

function ensure(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

const describeHeader = (h: PoolHeaderState) =>
  `next ${h.next}, capacity ${h.capacity}, ${h.exhausted ? 'exhausted' : 'not exhausted'}`;

/**
 * The GPU self-check of `gpumorph doctor`: runs the element-pool allocation probe (every
 * invocation asks 0–3 elements, all lanes allocating together in team mode) and verifies on the
 * CPU that the indices handed out are distinct and exactly `[0, total)`, that the header is right,
 * and that each element holds the invocation that got it; then checks that a pool smaller than the
 * demand reports exhaustion, keeps its contents when it grows, and serves the demand afterwards.
 * Never throws for a failing check: each failure becomes a result with `pass: false`.
 *
 * @example
 * ```ts
 * const ctx = await acquireGpu({ require: true });
 * const results = await runSelfCheck(ctx!);
 * console.log(results.every((r) => r.pass) ? 'GPU OK' : results);
 * ctx!.destroy();
 * ```
 */
export async function runSelfCheck(
  ctx: GpuContext,
  options: SelfCheckOptions = {},
): Promise<SelfCheckResult[]> {
  const invocations = options.invocations ?? 4096;
  const rounds = options.maxPerInvocation ?? 3;
  const requests = probeRequests(invocations, rounds);
  const total = requests.reduce((sum, r) => sum + r, 0);
  const team = ctx.features.subgroups ? 'subgroup' : 'workgroup';
  const results: SelfCheckResult[] = [];
  let blocked: string | undefined;

  const check = async (name: string, body: () => Promise<string>): Promise<boolean> => {
    options.onCheck?.(name);
    if (blocked) {
      results.push({ name, pass: false, detail: `not run: ${blocked}`, ms: 0 });
      return false;
    }
    const start = performance.now();
    try {
      const detail = await body();
      results.push({ name, pass: true, detail, ms: performance.now() - start });
      return true;
    } catch (error) {
      const message =
        error instanceof Error
          ? `${error instanceof CheckFailure ? '' : `${error.name}: `}${error.message}`
          : String(error);
      results.push({ name, pass: false, detail: message, ms: performance.now() - start });
      return false;
    }
  };

  /** Runs the probe and verifies it; `limit` is how many elements can have been handed out. */
  const probe = async (pool: ElementPool, limit: number) => {
    const out = await runAllocationProbe(ctx, pool, requests, { mode: 'team', rounds });
    const header = await pool.readHeader();
    const elements = limit > 0 ? await pool.readElements(0, limit) : new Uint32Array(0);
    const verdict = verifyProbe({ requests, rounds, out, elements, elementWords: pool.elementWords, limit });
    ensure(verdict.problems.length === 0, verdict.problems.join('; '));
    return { header, verdict };
  };

  // Every pool made here, destroyed at the end whatever happened.
  const pools: ElementPool[] = [];
  const newPool = async (name: string, capacity: number) => {
    const pool = await createElementPool(ctx, { name, capacity });
    pools.push(pool);
    return pool;
  };

  try {
    // 1. A pool exactly as large as the demand: everything fits, nothing is flagged.
    await check(
      `allocate: ${invocations} invocations, ${total} elements (team mode, per ${team})`,
      async () => {
        const pool = await newPool('doctor', total);
        const { header } = await probe(pool, total);
        ensure(
          header.next === total && !header.exhausted,
          `header: ${describeHeader(header)}; expected next ${total}, not exhausted`,
        );
        return `indices distinct and exactly [0, ${total}), each element holds its invocation; ${describeHeader(header)}`;
      },
    );

    // 2–4. A pool of half the demand: exhaustion, growth, and the same step again.
    const small = Math.max(1, Math.floor(total / 2));
    let growing: ElementPool | undefined;
    let snapshot: Uint32Array = new Uint32Array(0);
    let demand = 0;
    const exhausted = await check(`exhaustion: pool of ${small} for a demand of ${total}`, async () => {
      const pool = await newPool('doctor_grow', small);
      growing = pool;
      const { header } = await probe(pool, small);
      ensure(header.exhausted, `the pool was not flagged exhausted (${describeHeader(header)})`);
      ensure(header.next === total, `header records demand ${header.next}, expected ${total}`);
      demand = header.next;
      snapshot = await pool.readElements(0, small);
      return `flagged exhausted, demand ${demand} recorded, exactly [0, ${small}) handed out`;
    });
    if (!exhausted) blocked = 'the exhaustion check failed';
    await check(`growth keeps contents: ${small} → ≥ ${total} elements`, async () => {
      const target = growing;
      ensure(target !== undefined, 'no pool from the exhaustion check');
      const capacity = await target.grow(demand);
      ensure(capacity >= demand, `grew to ${capacity}, below the demand ${demand}`);
      const after = await target.readElements(0, small);
      const differs = after.findIndex((word, i) => word !== snapshot[i]);
      ensure(
        differs === -1,
        `word ${differs % target.elementWords} of element ${Math.floor(differs / target.elementWords)} changed ` +
          `from ${snapshot[differs]} to ${after[differs]}`,
      );
      const header = await target.readHeader();
      ensure(
        !header.exhausted && header.capacity === capacity,
        `header after growth: ${describeHeader(header)}`,
      );
      return `capacity ${small} → ${capacity}, all ${small * target.elementWords} words kept`;
    });
    await check(`re-run after growth: ${invocations} invocations, ${total} elements`, async () => {
      const target = growing;
      ensure(target !== undefined, 'no pool from the exhaustion check');
      await target.reset();
      const { header } = await probe(target, total);
      ensure(
        header.next === total && !header.exhausted,
        `header: ${describeHeader(header)}; expected next ${total}, not exhausted`,
      );
      return `indices distinct and exactly [0, ${total}); ${describeHeader(header)}`;
    });
  } finally {
    for (const pool of pools) pool.destroy();
  }

  // 5. Nothing went wrong outside our error scopes.
  blocked = undefined;
  await check('no uncaptured WebGPU errors', async () => {
    await ctx.idle();
    const errors = ctx.uncapturedErrors;
    ensure(errors.length === 0, errors.map((e) => `${e.name}: ${e.message}`).join('; '));
    return 'none';
  });
  return results;
}
