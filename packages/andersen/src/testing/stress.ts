import type { GpuContext } from '@gpumorph/gpu-allocator';
import fc from 'fast-check';
import { solveAndersenReference } from '../cpu/reference';
import { formatConstraintText } from '../io/text';
import { applyOpaqueObjects, type OpaqueObjects } from '../model/opaque';
import type { ConstraintProgram } from '../model/program';
import { representativesOf } from '../offline/graph';
import { applyOfflineMerges, computeOfflineHcd } from '../offline/hcd';
import { appendOfflineMerges, type HcdPairs } from '../offline/hcd-pairs';
import { computeHvn } from '../offline/hvn';
import type { AndersenResult } from '../result/result';
import { type AndersenEngine, solveAndersen } from '../solve';
import { type CShapedProgramOptions, cShapedProgram } from './c-shapes';

/** One way of solving a program in the differential check. */
export interface StressVariant {
  readonly engine: Exclude<AndersenEngine, 'auto'>;
  /**
   * `none`, the program's own offline HCD table (`computeOfflineHcd`'s default, exact), HVN's
   * merges, both, or the table with ref cycles merged offline (`refCycleVariables: 'merge'`, the
   * shipped tables' treatment, larger where a cycle through `*x` never closes).
   */
  readonly offline: 'none' | 'hcd' | 'hvn' | 'hcd+hvn' | 'hcd-merge';
  /** Solve the program rewritten onto the table's offline merges (the `_after_hcd` analogue). */
  readonly afterHcd: boolean;
  /** WebGPU only: elements each pool starts with (small ones make the pools grow). */
  readonly initialPoolElements?: number;
}

/** A variant whose answer broke the expected relation, with the first node that shows it. */
export interface StressDifference {
  readonly variant: StressVariant;
  /** `differs`: not equal where equality is expected; `smaller`: a set below the exact one. */
  readonly kind: 'differs' | 'smaller';
  readonly node: number;
  readonly expected: readonly number[];
  readonly actual: readonly number[];
}

/** Options of {@link checkProgram}. */
export interface CheckProgramOptions {
  /** The GPU for the WebGPU variants; none: CPU variants only. */
  readonly gpu?: GpuContext | null | undefined;
  /** Programs of at most this many constraints are also solved by the literal reference (default 400). */
  readonly referenceUpTo?: number | undefined;
  /** The opaque-object convention to solve under (default: none). */
  readonly opaqueObjects?: OpaqueObjects | undefined;
  /** Orders the variants (a seeded shuffle: the harness varies the order between programs). */
  readonly order?: (variants: StressVariant[]) => StressVariant[];
  /** Pool sizes to start the WebGPU variants with (one per variant, cycled); default the engine's. */
  readonly initialPoolElements?: readonly (number | undefined)[];
}

const sameSet = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};
const isSubset = (small: ArrayLike<number>, big: ArrayLike<number>) => {
  let j = 0;
  for (let i = 0; i < small.length; i++) {
    while (j < big.length && (big[j] as number) < (small[i] as number)) j++;
    if (j >= big.length || big[j] !== small[i]) return false;
  }
  return true;
};

/**
 * Whether a table of `computeOfflineHcd(program, { refCycleVariables: 'merge' })` (or a shipped
 * `_hcd.txt` one) is exact for this program: every variable in the class of an online pair's
 * pointer points, in the exact answer, to some object that can be dereferenced (`objectSize > 0`;
 * an opaque object with contents `empty` cannot). Where one does not, a cycle through `*x` that
 * never closes was merged offline, and the answers with that table may be larger (see the offline
 * README). The default table is exact on every program.
 */
export function hcdExactFor(
  hcd: HcdPairs,
  exact: (v: number) => ArrayLike<number>,
  program: Pick<ConstraintProgram, 'nodeCount' | 'objectSize'>,
): boolean {
  const { nodeCount, objectSize } = program;
  const representative = representativesOf(nodeCount, hcd.offlineMerges);
  const pointers = new Set<number>();
  for (let i = 1; i < hcd.online.length; i += 2)
    pointers.add(representative[hcd.online[i] as number] as number);
  for (let v = 0; v < nodeCount; v++) {
    if (!pointers.has(representative[v] as number)) continue;
    const members = exact(v);
    let dereferenceable = false;
    for (let i = 0; i < members.length && !dereferenceable; i++)
      dereferenceable = (objectSize[members[i] as number] as number) > 0;
    if (!dereferenceable) return false;
  }
  return true;
}

/** Every variant {@link checkProgram} runs: both engines × offline passes × raw / after-HCD. */
export function stressVariants(withGpu: boolean): StressVariant[] {
  const out: StressVariant[] = [];
  for (const engine of withGpu ? (['cpu', 'webgpu'] as const) : (['cpu'] as const)) {
    for (const offline of ['none', 'hcd', 'hvn', 'hcd+hvn', 'hcd-merge'] as const) {
      out.push({ engine, offline, afterHcd: false });
      if (offline !== 'none' && offline !== 'hvn') out.push({ engine, offline, afterHcd: true });
    }
  }
  return out;
}

/**
 * Solves `program` every way {@link stressVariants} lists and checks the answers against each other
 * and against the literal reference (small programs): every answer equals the exact one, except
 * those with the `merge` table, which contain it, equal it where {@link hcdExactFor} holds and are
 * equal to each other (both engines, raw and after-HCD). Returns the differences (empty when all
 * hold).
 *
 * @example
 * ```ts
 * const differences = await checkProgram(program, { gpu: ctx });
 * expect(differences).toEqual([]);
 * ```
 */
export async function checkProgram(
  input: ConstraintProgram,
  options: CheckProgramOptions = {},
): Promise<StressDifference[]> {
  const opaque = options.opaqueObjects ?? { nodes: [], contents: 'tracked' as const };
  // Offline passes see the program as the engines solve it (opaque objects rewritten).
  const program = applyOpaqueObjects(input, undefined, opaque).program;
  const n = program.nodeCount;
  const hcd = computeOfflineHcd(program);
  const merged = computeOfflineHcd(program, { refCycleVariables: 'merge' });
  const hvn = computeHvn(program).merges;
  const tables: Record<StressVariant['offline'], HcdPairs | undefined> = {
    none: undefined,
    hcd,
    hvn: appendOfflineMerges(undefined, hvn),
    'hcd+hvn': appendOfflineMerges(hcd, hvn),
    'hcd-merge': merged,
  };
  const afterHcd = applyOfflineMerges(program, hcd.offlineMerges);
  const afterMerge = applyOfflineMerges(program, merged.offlineMerges);
  let variants = stressVariants(Boolean(options.gpu));
  if (options.order) variants = options.order(variants);
  const sizes = options.initialPoolElements ?? [undefined];

  const results: { variant: StressVariant; result: AndersenResult }[] = [];
  let gpuIndex = 0;
  for (const variant of variants) {
    const initialPoolElements = variant.engine === 'webgpu' ? sizes[gpuIndex++ % sizes.length] : undefined;
    const solved = variant.afterHcd ? (variant.offline === 'hcd-merge' ? afterMerge : afterHcd) : program;
    const result = await solveAndersen(solved, {
      engine: variant.engine,
      gpu: options.gpu ?? undefined,
      hcd: tables[variant.offline],
      ...(initialPoolElements === undefined ? {} : { initialPoolElements }),
    });
    results.push({
      variant: { ...variant, ...(initialPoolElements === undefined ? {} : { initialPoolElements }) },
      result,
    });
  }

  // The exact answer: the literal definition where small, else the CPU engine without HCD (which
  // the reference checks on every small program).
  const referenceUpTo = options.referenceUpTo ?? 400;
  let exact: (v: number) => ArrayLike<number>;
  if (program.constraints.length <= referenceUpTo) {
    const sets = solveAndersenReference(program).map((s) => Uint32Array.from(s).sort());
    exact = (v) => sets[v] as Uint32Array;
  } else {
    const plain = results.find((r) => r.variant.engine === 'cpu' && r.variant.offline === 'none');
    if (!plain) throw new Error('the CPU variant without HCD is missing');
    exact = (v) => plain.result.pointsTo(v);
  }
  const mergeExact = hcdExactFor(merged, exact, program);
  // Where the merge table over-approximates, answers with it (either engine, raw or after-HCD)
  // must still be equal.
  const firstWith = (offline: StressVariant['offline']) => results.find((r) => r.variant.offline === offline);
  const differences: StressDifference[] = [];
  for (const { variant, result } of results) {
    const mayBeLarger = variant.offline === 'hcd-merge' && !mergeExact;
    for (let v = 0; v < n; v++) {
      const actual = result.pointsTo(v);
      const want = exact(v);
      if (!mayBeLarger) {
        if (!sameSet(actual, want)) {
          differences.push({
            variant,
            kind: 'differs',
            node: v,
            expected: Array.from(want),
            actual: Array.from(actual),
          });
          break;
        }
        continue;
      }
      if (!isSubset(want, actual)) {
        differences.push({
          variant,
          kind: 'smaller',
          node: v,
          expected: Array.from(want),
          actual: Array.from(actual),
        });
        break;
      }
      const same = firstWith(variant.offline)?.result.pointsTo(v) ?? actual;
      if (!sameSet(actual, same)) {
        differences.push({ variant, kind: 'differs', node: v, expected: [...same], actual: [...actual] });
        break;
      }
    }
  }
  return differences;
}

/** Options of {@link stressAndersen}. */
export interface StressOptions {
  /** Generated programs to check. */
  readonly runs: number;
  /** fast-check seed (default: a random one, reported). */
  readonly seed?: number | undefined;
  readonly maxNodes?: number | undefined;
  readonly maxConstraints?: number | undefined;
  /** See {@link CShapedProgramOptions.size}. */
  readonly size?: fc.SizeForArbitrary | undefined;
  /** The long-lived GPU context the WebGPU variants share (its pools and buffers are reused). */
  readonly gpu?: GpuContext | null | undefined;
  /** Also check every program under the `empty` convention for its first object (default true). */
  readonly opaque?: boolean | undefined;
  /** See {@link CheckProgramOptions.referenceUpTo}. */
  readonly referenceUpTo?: number | undefined;
  /**
   * Stop generating programs after this many ms (a program under check finishes); `programs` in
   * the report says how many ran. Default: no limit, `runs` programs.
   */
  readonly timeLimitMs?: number | undefined;
  /** Called after each program (progress). */
  readonly onProgram?: ((index: number, program: ConstraintProgram) => void) | undefined;
}

/** What {@link stressAndersen} found: nothing, or a shrunk program and its differences. */
export interface StressReport {
  readonly seed: number;
  readonly programs: number;
  readonly failure?: {
    /** The shrunk program, in the `gpumorph-constraints 1` text format. */
    readonly text: string;
    readonly opaque: boolean;
    readonly differences: readonly StressDifference[];
  };
}

/**
 * The differential stress run: `runs` programs of {@link cShapedProgram}, each checked by
 * {@link checkProgram} with the variants in a seeded random order, the WebGPU ones (when `gpu`)
 * on one long-lived context with pools that start anywhere from one element to the engine's
 * default; a program that breaks a relation is shrunk by fast-check and returned as text.
 *
 * @example
 * ```ts
 * const report = await stressAndersen({ runs: 100, gpu: ctx });
 * if (report.failure) writeFileSync('found.constraints.txt', report.failure.text);
 * ```
 */
export async function stressAndersen(options: StressOptions): Promise<StressReport> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  let programs = 0;
  const counted = () => programs;
  const arbitrary = fc.tuple(
    cShapedProgram({
      maxNodes: options.maxNodes,
      maxConstraints: options.maxConstraints,
      size: options.size,
    }),
    fc.boolean(),
    fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    fc.array(fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }), { minLength: 1, maxLength: 4 }),
  );
  const run = async ([program, opaqueOn, orderSeed, pools]: [
    ConstraintProgram,
    boolean,
    number,
    (number | undefined)[],
  ]) => {
    programs++;
    options.onProgram?.(programs, program);
    const opaque = opaqueOn && options.opaque !== false;
    const first = program.objectSize.findIndex((size) => size > 0);
    return checkProgram(program, {
      gpu: options.gpu,
      referenceUpTo: options.referenceUpTo,
      opaqueObjects: opaque && first >= 0 ? { nodes: [first], contents: 'empty' } : undefined,
      order: (variants) => seededShuffle(variants, orderSeed),
      initialPoolElements: pools,
    });
  };
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => (await run(value)).length === 0),
    {
      numRuns: options.runs,
      seed,
      ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs }),
    },
  );
  if (!details.failed || details.counterexample === null) return { seed, programs: counted() };
  const [program, opaqueOn] = details.counterexample[0];
  const differences = await run(details.counterexample[0]);
  return {
    seed,
    programs: counted(),
    failure: {
      text: formatConstraintText(program),
      opaque: opaqueOn && options.opaque !== false,
      differences,
    },
  };
}

/** A Fisher–Yates shuffle driven by a small linear congruential generator (deterministic per seed). */
function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
