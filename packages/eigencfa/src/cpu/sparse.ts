/**
 * The CPU sparse engine: a worklist 0CFA over the look-up vectors with difference propagation.
 *
 * A call site c with λl ∈ σ(Fun[c]) makes two subset edges, σ(Arg1[c]) ⊆ σ(a_l) and
 * σ(Arg2[c]) ⊆ σ(b_l). Edges are found when l first reaches σ(Fun[c]) (a row → calls index);
 * each row keeps an append-only member list, and only the members added since the row was last
 * processed travel along its edges, so every (edge, lambda) pair is handled once. Rows are small
 * lists with a linear membership test until they pass {@link SMALL_ROW}, then get a bitset.
 * @module
 */
import { CfaAbortedError } from '../errors';
import type { CfaMatrices } from '../matrix/program';
import { CfaStore } from '../store';

/**
 * Rows with more members than this switch from a list scan to a bitset membership test.
 *
 * @example
 * ```ts
 * SMALL_ROW; // 12
 * ```
 */
export const SMALL_ROW = 12;

/** Counters of one CPU run. */
export interface CpuSparseStatistics {
  /** Rows taken off the worklist. */
  readonly steps: number;
  /** Subset edges between variable rows. */
  readonly edges: number;
  /** Rows that got a bitset. */
  readonly bitsetRows: number;
}

/** Hooks of {@link solveCpuSparse}. */
export interface CpuSparseHooks {
  readonly signal?: AbortSignal | undefined;
  /** Called every `progressEvery` steps with the steps so far and the worklist's length. */
  readonly onProgress?: ((steps: number, worklist: number) => void) | undefined;
  readonly progressEvery?: number;
}

/**
 * The calls by the variable row of their function, as CSR: row v's calls are
 * `readCalls[readStart[v] .. readStart[v + 1])`. Calls on a lambda row are not listed (they fire
 * once, at the start).
 */
function callsByFunctionRow(m: CfaMatrices): { readStart: Uint32Array; readCalls: Uint32Array } {
  const L = m.lams;
  const V = 2 * L;
  const { fun, calls } = m;
  const readStart = new Uint32Array(V + 1);
  for (let c = 0; c < calls; c++) {
    const f = fun[c] as number;
    if (f >= L) readStart[f - L + 1] = (readStart[f - L + 1] as number) + 1;
  }
  for (let v = 0; v < V; v++) readStart[v + 1] = (readStart[v + 1] as number) + (readStart[v] as number);
  const readCalls = new Uint32Array(readStart[V] as number);
  const fill = readStart.slice(0, V);
  for (let c = 0; c < calls; c++) {
    const f = fun[c] as number;
    if (f >= L) readCalls[(fill[f - L] as number)++] = c;
  }
  return { readStart, readCalls };
}

/**
 * Computes the least fixpoint of the EigenCFA store for `m`.
 *
 * @example
 * ```ts
 * const m = await readMatricesDir('../shared/data/eigencfa/vhm/64');
 * const { store } = solveCpuSparse(m);
 * store.row(m.lams + 5); // flow set of the first formal of λ5
 * ```
 */
export function solveCpuSparse(
  m: CfaMatrices,
  hooks: CpuSparseHooks = {},
): { store: CfaStore; statistics: CpuSparseStatistics } {
  const L = m.lams;
  const V = 2 * L;
  const words = (L + 31) >>> 5;
  const { fun, arg1, arg2, calls } = m;
  // Arity-aware flows: call c applies λl only where bit cls[c] of mask[l] is set (all bits without).
  const mask = m.arity?.lambdas;
  const cls = m.arity?.calls;
  const { readStart, readCalls } = callsByFunctionRow(m);
  const members: number[][] = new Array(V);
  for (let v = 0; v < V; v++) members[v] = [];
  const bits: (Uint32Array | undefined)[] = new Array(V);
  const done = new Int32Array(V);
  const queued = new Uint8Array(V);
  const stack: number[] = [];
  const succ: (number[] | undefined)[] = new Array(V);
  const edgeKeys = new Set<number>();
  let bitsetRows = 0;

  const insert = (v: number, x: number): void => {
    const mem = members[v] as number[];
    const b = bits[v];
    if (b !== undefined) {
      const w = x >>> 5;
      const bit = 1 << (x & 31);
      const old = b[w] as number;
      if (old & bit) return;
      b[w] = old | bit;
    } else {
      const n = mem.length;
      for (let i = 0; i < n; i++) if (mem[i] === x) return;
      if (n >= SMALL_ROW) {
        const nb = new Uint32Array(words);
        for (let i = 0; i < n; i++) {
          const y = mem[i] as number;
          nb[y >>> 5] = (nb[y >>> 5] as number) | (1 << (y & 31));
        }
        nb[x >>> 5] = (nb[x >>> 5] as number) | (1 << (x & 31));
        bits[v] = nb;
        bitsetRows++;
      }
    }
    mem.push(x);
    if (queued[v] === 0) {
      queued[v] = 1;
      stack.push(v);
    }
  };

  const addEdge = (s: number, d: number): void => {
    if (s < L) {
      insert(d, s);
      return;
    }
    const sv = s - L;
    if (sv === d) return;
    const key = sv * V + d;
    if (edgeKeys.has(key)) return;
    edgeKeys.add(key);
    let list = succ[sv];
    if (list === undefined) {
      list = [];
      succ[sv] = list;
    }
    list.push(d);
    // Members not processed yet will travel along the new edge when the row is processed.
    const mem = members[sv] as number[];
    const n = done[sv] as number;
    for (let i = 0; i < n; i++) insert(d, mem[i] as number);
  };

  // Calls whose function is a lambda term bind its formals once.
  for (let c = 0; c < calls; c++) {
    const f = fun[c] as number;
    if (f < L && (mask === undefined || ((mask[f] as number) >>> ((cls as Uint32Array)[c] as number)) & 1)) {
      addEdge(arg1[c] as number, f);
      addEdge(arg2[c] as number, L + f);
    }
  }

  let steps = 0;
  const every = hooks.progressEvery ?? 65_536;
  const signal = hooks.signal;
  while (stack.length > 0) {
    const v = stack.pop() as number;
    queued[v] = 0;
    const mem = members[v] as number[];
    const start = done[v] as number;
    const end = mem.length;
    done[v] = end;
    steps++;
    if (steps % every === 0) {
      if (signal?.aborted) throw new CfaAbortedError('CFA cancelled', { cause: signal.reason });
      hooks.onProgress?.(steps, stack.length);
    }
    const r0 = readStart[v] as number;
    const r1 = readStart[v + 1] as number;
    if (r1 > r0) {
      for (let i = start; i < end; i++) {
        const l = mem[i] as number;
        const ml = mask === undefined ? 0xffff_ffff : (mask[l] as number);
        for (let k = r0; k < r1; k++) {
          const c = readCalls[k] as number;
          if (cls !== undefined && ((ml >>> (cls[c] as number)) & 1) === 0) continue;
          addEdge(arg1[c] as number, l);
          addEdge(arg2[c] as number, L + l);
        }
      }
    }
    const out = succ[v];
    if (out !== undefined) {
      for (let j = 0; j < out.length; j++) {
        const d = out[j] as number;
        for (let i = start; i < end; i++) insert(d, mem[i] as number);
      }
    }
  }
  if (signal?.aborted) throw new CfaAbortedError('CFA cancelled', { cause: signal.reason });

  // Compressed rows: lambda rows hold themselves, variable rows their sorted members.
  const offsets = new Uint32Array(3 * L + 1);
  let total = L;
  for (let r = 0; r < L; r++) offsets[r + 1] = r + 1;
  for (let v = 0; v < V; v++) {
    total += (members[v] as number[]).length;
    offsets[L + v + 1] = total;
  }
  const data = new Uint32Array(total);
  for (let r = 0; r < L; r++) data[r] = r;
  for (let v = 0; v < V; v++) {
    const mem = members[v] as number[];
    if (mem.length === 0) continue;
    const o = offsets[L + v] as number;
    const view = data.subarray(o, o + mem.length);
    for (let i = 0; i < mem.length; i++) view[i] = mem[i] as number;
    view.sort();
  }
  return { store: new CfaStore(offsets, data), statistics: { steps, edges: edgeKeys.size, bitsetRows } };
}
