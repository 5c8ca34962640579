import type { AnalysisEvents, AnalysisIterationEvent } from '@gpumorph/gpu-allocator';
import { type SparseBitVector, SparseBitVectorPool } from '@gpumorph/sparse-bitvector';
import { EventEmitter } from 'events';
// A namespace import: typed-emitter is CommonJS with `export default`, which a default import
// mistypes for users on `moduleResolution: node16/nodenext` (the interface sits under `.default`).
import type * as TypedEmitter from 'typed-emitter';
import { SolveAbortedError } from '../errors';
import { ConstraintKind, type ConstraintProgram } from '../model/program';
import { findRoot } from '../model/union-find';
import type { HcdPairs } from '../offline/hcd-pairs';
import { AndersenResult, type SolveStatistics } from '../result/result';
import { EdgeSet } from './edge-set';

/** Phases a solve goes through, in order (`collapse` and `wave` repeat each round). */
export type SolvePhase = 'setup' | 'collapse' | 'wave' | 'done';

/**
 * One round of the solver (cycle collapse, wave propagation, complex constraints): the `round`
 * and `elapsedMs` of every analysis' iteration event, and this solver's counts.
 */
export interface IterationEvent extends AnalysisIterationEvent {
  /** 1-based round number. */
  readonly round: number;
  /** Nodes whose points-to set was propagated this round. */
  readonly propagated: number;
  /** Copy edges added by loads and stores this round. */
  readonly edgesAdded: number;
  /** Nodes merged into another this round (cycles and HCD). */
  readonly merged: number;
  /** Milliseconds since the solve started. */
  readonly elapsedMs: number;
  /**
   * GPU milliseconds of this round per kernel (the WebGPU engine with `profile` and timestamp
   * queries only; the worklist's radix sort as `sort`).
   */
  readonly kernelMs?: Readonly<Record<string, number>> | undefined;
}

/** Events of {@link CpuSolver}: every analysis' events (`phase`, `iteration`, `done`). */
export type CpuSolverEvents = AnalysisEvents<SolvePhase, IterationEvent, SolveStatistics>;

/** Options of {@link createCpuSolver}. */
export interface CpuSolverOptions {
  /**
   * Hybrid cycle detection table (offline merges and online pairs, e.g. from the Hardekopf
   * `_hcd.txt` file or {@link computeOfflineHcd}). Offline merges are applied before solving; each
   * online pair (y, x) merges every object x comes to point to with y.
   */
  readonly hcd?: HcdPairs | undefined;
  /** Cancels the solve: `solve()` rejects with {@link SolveAbortedError}. */
  readonly signal?: AbortSignal | undefined;
  /** Longest stretch of work between two returns to the event loop, in ms (default 50). */
  readonly yieldEveryMs?: number | undefined;
}

const NONE = -1;

/**
 * The sequential Andersen solver: wave propagation (Pereira & Berlin) with difference propagation
 * on wide sparse bit vectors, cycle collapse (Tarjan on the copy graph, which subsumes lazy cycle
 * detection) and hybrid cycle detection's online merges. It computes the least fixed point of the
 * program it is given; an HCD table's offline merges are taken as given (see the offline README on
 * when they over-approximate).
 *
 * Each round: (1) after a round that added copy edges, collapse the strongly connected components
 * of the copy graph and order the rest topologically; (2) visit the dirty representatives in that
 * order (only those, sorted, when they are few): each takes what it gained since its last visit
 * (`pts − propagated`); its HCD pair merges those pointees, its loads and stores turn them into
 * new copy edges (each new edge carrying the whole source set once), its offset constraints shift
 * them (once per distinct offset), and its copy edges push them on — except to a node that
 * already absorbed an equal delta (deltas are interned by content each round). Rounds repeat until
 * a round propagates nothing.
 *
 * @example
 * ```ts
 * const solver = createCpuSolver(program, { hcd, signal: AbortSignal.timeout(60_000) });
 * solver.on('iteration', (e) => console.error(`round ${e.round}: ${e.propagated} nodes`));
 * const result = await solver.solve();
 * result.pointsTo(v);
 * ```
 */
export class CpuSolver extends (EventEmitter as new () => TypedEmitter.default<CpuSolverEvents>) {
  readonly program: ConstraintProgram;
  readonly #options: CpuSolverOptions;
  #solved = false;

  constructor(program: ConstraintProgram, options: CpuSolverOptions = {}) {
    super();
    this.program = program;
    this.#options = options;
  }

  /** Solves to the least fixed point; may be called once. */
  async solve(): Promise<AndersenResult> {
    if (this.#solved) throw new Error('CpuSolver.solve() may be called once; create another solver');
    this.#solved = true;
    return new SolveRun(this.program, this.#options, this).run();
  }
}

/**
 * A new {@link CpuSolver} for `program`.
 *
 * @example
 * ```ts
 * const result = await createCpuSolver(program).solve();
 * ```
 */
export function createCpuSolver(program: ConstraintProgram, options: CpuSolverOptions = {}): CpuSolver {
  return new CpuSolver(program, options);
}

/** The state of one solve. Node sets are created lazily: most nodes never point anywhere. */
class SolveRun {
  readonly program: ConstraintProgram;
  readonly options: CpuSolverOptions;
  readonly events: CpuSolver;
  readonly n: number;
  readonly parent: Uint32Array;
  readonly pointsPool = new SparseBitVectorPool({ capacity: 1 << 12 });
  readonly pts: (SparseBitVector | undefined)[];
  /** Members already pushed through the node's rules and edges. */
  readonly propagated: (SparseBitVector | undefined)[];
  /** Copy edges: a pair set refuses duplicates, per-node lists iterate fast; ids may be stale, read them through find(). */
  readonly edgeSet = new EdgeSet(1 << 16);
  readonly successorList: (number[] | undefined)[];
  /** Scratch marks of compactSuccessors (one stamp per call, so no clearing). */
  readonly stamp: Uint32Array;
  stampCounter = 0;
  tarjan:
    | {
        index: Int32Array;
        low: Uint32Array;
        onStack: Uint8Array;
        sccStack: Uint32Array;
        callNode: Uint32Array;
        callPos: Uint32Array;
        order: Uint32Array;
      }
    | undefined;
  /** Per node: head/tail of its load+store list and its offset list, linked through `nextConstraint`. */
  readonly complexHead: Int32Array;
  readonly complexTail: Int32Array;
  readonly offsetHead: Int32Array;
  readonly offsetTail: Int32Array;
  readonly nextConstraint: Int32Array;
  /**
   * HCD: per node, the nodes its pointees merge into. A class can have several (pairs of merged
   * nodes): they become one only once the class points somewhere, as HCD's definition says —
   * merging them when the classes merge would over-approximate for pointers that stay empty.
   */
  readonly hcdTargets: (number[] | undefined)[];
  /** Nodes whose pts may have grown since their last visit. */
  readonly dirty: Uint8Array;
  dirtyList: number[] = [];
  shiftScratch = new Uint32Array(1024);
  /** Scratch sets of shiftedMembers, one per distinct offset of the node being visited. */
  readonly shiftedSets: SparseBitVector[] = [];
  /** Position of each representative in the last topological order (nodes merged since: read through find()). */
  position: Int32Array | undefined;
  readonly delta: SparseBitVector;
  /** Per node, the id of the last interned delta pushed into it (NONE when none). */
  readonly lastAbsorbed: Int32Array;
  readonly internedByHash = new Map<number, number[]>();
  readonly internedSets: SparseBitVector[] = [];
  /** Id of `internedSets[0]`: ids keep counting across rounds, so a stale id never matches. */
  firstInternedId = 0;
  readonly stats = {
    rounds: 0,
    sccMerges: 0,
    hcdMerges: 0,
    offlineMerges: 0,
    edgesAdded: 0,
    propagations: 0,
  };
  started = 0;
  lastYield = 0;
  readonly yieldEveryMs: number;

  constructor(program: ConstraintProgram, options: CpuSolverOptions, events: CpuSolver) {
    this.program = program;
    this.options = options;
    this.events = events;
    const n = program.nodeCount;
    this.n = n;
    this.yieldEveryMs = options.yieldEveryMs ?? 50;
    this.parent = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.parent[i] = i;
    this.pts = new Array(n);
    this.propagated = new Array(n);
    this.successorList = new Array(n);
    this.stamp = new Uint32Array(n);
    this.complexHead = new Int32Array(n).fill(NONE);
    this.complexTail = new Int32Array(n).fill(NONE);
    this.offsetHead = new Int32Array(n).fill(NONE);
    this.offsetTail = new Int32Array(n).fill(NONE);
    this.nextConstraint = new Int32Array(program.constraints.length).fill(NONE);
    this.hcdTargets = new Array(n);
    this.dirty = new Uint8Array(n);
    this.lastAbsorbed = new Int32Array(n).fill(NONE);
    this.delta = this.pointsPool.create();
  }

  find(v: number): number {
    return findRoot(this.parent, v);
  }

  ptsOf(v: number): SparseBitVector {
    let set = this.pts[v];
    if (set === undefined) {
      set = this.pointsPool.create();
      this.pts[v] = set;
    }
    return set;
  }

  /** Flags `v` for a visit; the list lets a round with few dirty nodes skip the full order. */
  markDirty(v: number): void {
    if (this.dirty[v] === 0) {
      this.dirty[v] = 1;
      this.dirtyList.push(v);
    }
  }

  /**
   * What this round visits: the whole topological order, or, when few nodes are dirty, just those
   * sorted by their position in it (late rounds touch a handful of nodes out of hundreds of thousands).
   */
  visitOrder(order: Uint32Array): Uint32Array {
    const dirtyList = this.dirtyList;
    this.dirtyList = [];
    if (dirtyList.length * 16 >= order.length || this.position === undefined) return order;
    const position = this.position;
    const reps = new Uint32Array(dirtyList.length);
    for (let i = 0; i < dirtyList.length; i++) reps[i] = this.find(dirtyList[i] as number);
    return reps.sort((a, b) => (position[a] as number) - (position[b] as number));
  }

  /** Adds the copy edge `from → to` (both representatives); false when it was there. */
  addEdge(from: number, to: number): boolean {
    if (!this.edgeSet.add(from, to)) return false;
    const list = this.successorList[from];
    if (list === undefined) this.successorList[from] = [to];
    else list.push(to);
    return true;
  }

  appendList(head: Int32Array, tail: Int32Array, node: number, constraint: number): void {
    if (tail[node] === NONE) head[node] = constraint;
    else this.nextConstraint[tail[node] as number] = constraint;
    tail[node] = constraint;
  }

  concatList(head: Int32Array, tail: Int32Array, into: number, from: number): void {
    if (head[from] === NONE) return;
    if (tail[into] === NONE) head[into] = head[from] as number;
    else this.nextConstraint[tail[into] as number] = head[from] as number;
    tail[into] = tail[from] as number;
    head[from] = NONE;
    tail[from] = NONE;
  }

  /** Merges the classes of `a` and `b`; returns the representative (or -1 when already one). */
  merge(a: number, b: number): number {
    let ra = this.find(a);
    let rb = this.find(b);
    if (ra === rb) return -1;
    // Keep the node with the larger set as representative: fewer elements move.
    const sizeA = this.pts[ra]?.elementCount ?? 0;
    const sizeB = this.pts[rb]?.elementCount ?? 0;
    if (sizeA > sizeB) [ra, rb] = [rb, ra];
    this.parent[ra] = rb;
    const from = this.pts[ra];
    if (from !== undefined) {
      this.ptsOf(rb).unionWith(from);
      from.clear();
      this.pts[ra] = undefined;
    }
    // What was propagated from both may be skipped; the rest is pushed again.
    this.propagated[rb] = intersectOrDrop(this.propagated[rb], this.propagated[ra]);
    this.propagated[ra] = undefined;
    // Concatenate the shorter list onto the longer; stale ids and duplicates are cleaned when the
    // cycle pass next walks the list (compactSuccessors).
    const moving = this.successorList[ra];
    if (moving !== undefined) {
      const staying = this.successorList[rb];
      if (staying === undefined) this.successorList[rb] = moving;
      else if (staying.length >= moving.length) for (const w of moving) staying.push(w);
      else {
        for (const w of staying) moving.push(w);
        this.successorList[rb] = moving;
      }
      this.successorList[ra] = undefined;
    }
    this.concatList(this.complexHead, this.complexTail, rb, ra);
    this.concatList(this.offsetHead, this.offsetTail, rb, ra);
    const targetsA = this.hcdTargets[ra];
    if (targetsA !== undefined) {
      const targetsB = this.hcdTargets[rb];
      if (targetsB === undefined) this.hcdTargets[rb] = targetsA;
      else for (const t of targetsA) targetsB.push(t);
      this.hcdTargets[ra] = undefined;
    }
    this.markDirty(rb);
    return rb;
  }

  async maybeYield(): Promise<void> {
    const now = performance.now();
    if (now - this.lastYield < this.yieldEveryMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.lastYield = performance.now();
    this.checkAbort();
  }

  checkAbort(): void {
    const signal = this.options.signal;
    if (signal?.aborted) {
      throw new SolveAbortedError('the Andersen solve was cancelled', { cause: signal.reason });
    }
  }

  setup(): void {
    const { program } = this;
    const c = program.constraints;
    const hcd = this.options.hcd;
    if (hcd) {
      const merges = hcd.offlineMerges;
      for (let i = 0; i + 1 < merges.length; i += 2) {
        if (this.merge(merges[i] as number, merges[i + 1] as number) !== -1) this.stats.offlineMerges++;
      }
    }
    for (let i = 0; i < c.length; i++) {
      const dst = this.find(c.dst[i] as number);
      const src = this.find(c.src[i] as number);
      switch (c.kind[i] as ConstraintKind) {
        case ConstraintKind.AddressOf:
          if (this.ptsOf(dst).set(c.src[i] as number)) this.markDirty(dst);
          break;
        case ConstraintKind.Copy:
          if (dst !== src) this.addEdge(src, dst);
          break;
        case ConstraintKind.Load:
          this.appendList(this.complexHead, this.complexTail, src, i);
          break;
        case ConstraintKind.Store:
          this.appendList(this.complexHead, this.complexTail, dst, i);
          break;
        case ConstraintKind.Offset:
          this.appendList(this.offsetHead, this.offsetTail, src, i);
          break;
      }
    }
    if (hcd) {
      const online = hcd.online;
      for (let i = 0; i + 1 < online.length; i += 2) {
        const y = online[i] as number;
        const x = this.find(online[i + 1] as number);
        const targets = this.hcdTargets[x];
        if (targets === undefined) this.hcdTargets[x] = [y];
        else targets.push(y);
      }
    }
  }

  /** The distinct representatives of `o + offset` for the members `o` the offset applies to. */
  distinctFields(members: Uint32Array, offset: number): number[] {
    const objectSize = this.program.objectSize;
    const stamp = ++this.stampCounter;
    const mark = this.stamp;
    const fields: number[] = [];
    for (const o of members) {
      if (offset >= (objectSize[o] as number)) continue;
      const field = this.find(o + offset);
      if (mark[field] === stamp) continue;
      mark[field] = stamp;
      fields.push(field);
    }
    return fields;
  }

  /**
   * `{o + offset | o ∈ members, offset < objectSize[o]}` in the scratch set `slot` (cleared by the
   * caller after use), or null when empty. Shifting keeps the members ascending, so they go in
   * with one walk.
   */
  shiftedMembers(members: Uint32Array, offset: number, slot: number): SparseBitVector | null {
    const objectSize = this.program.objectSize;
    if (this.shiftScratch.length < members.length) this.shiftScratch = new Uint32Array(members.length * 2);
    const shifted = this.shiftScratch;
    let count = 0;
    for (const o of members) if (offset < (objectSize[o] as number)) shifted[count++] = o + offset;
    if (count === 0) return null;
    while (this.shiftedSets.length <= slot) this.shiftedSets.push(this.pointsPool.create());
    const set = this.shiftedSets[slot] as SparseBitVector;
    set.setSorted(shifted, count);
    return set;
  }

  /**
   * The id of `delta`'s content this round: equal sets get equal ids (hash, then an exact
   * comparison with the interned copy), so `lastAbsorbed[w] === id` proves `pts(w) ⊇ delta`.
   */
  internDelta(delta: SparseBitVector): number {
    const hash = delta.hash();
    let ids = this.internedByHash.get(hash);
    if (ids === undefined) {
      ids = [];
      this.internedByHash.set(hash, ids);
    } else {
      for (const id of ids)
        if ((this.internedSets[id - this.firstInternedId] as SparseBitVector).equals(delta)) return id;
    }
    const id = this.firstInternedId + this.internedSets.length;
    const copy = this.pointsPool.create();
    copy.unionWith(delta);
    this.internedSets.push(copy);
    ids.push(id);
    return id;
  }

  /** Frees this round's interned deltas; their ids stay valid in `lastAbsorbed` (sets only grow). */
  forgetInternedDeltas(): void {
    for (const set of this.internedSets) set.clear();
    this.firstInternedId += this.internedSets.length;
    this.internedSets.length = 0;
    if (this.firstInternedId > 0x3fff_ffff) {
      // Ids would leave the Int32 range: forget what was absorbed (it only costs redundant unions).
      this.lastAbsorbed.fill(NONE);
      this.firstInternedId = 0;
    }
    this.internedByHash.clear();
  }

  /** Rewrites `v`'s successor list to distinct representatives other than `v`; returns it. */
  compactSuccessors(v: number): number[] | undefined {
    const list = this.successorList[v];
    if (list === undefined) return undefined;
    const stamp = ++this.stampCounter;
    const mark = this.stamp;
    let kept = 0;
    for (let i = 0; i < list.length; i++) {
      const w = this.find(list[i] as number);
      if (w === v || mark[w] === stamp) continue;
      mark[w] = stamp;
      list[kept++] = w;
    }
    if (kept !== list.length) list.length = kept;
    if (kept === 0) {
      this.successorList[v] = undefined;
      return undefined;
    }
    return list;
  }

  /**
   * Tarjan's algorithm (iterative) over representatives and their copy edges: merges every
   * strongly connected component and returns the representatives in topological order.
   */
  collapseCycles(): Uint32Array {
    const n = this.n;
    // Scratch arrays live across rounds (allocating seven node-sized arrays per round cost more
    // than the search); onStack is all zero again when a search ends.
    this.tarjan ??= {
      index: new Int32Array(n),
      low: new Uint32Array(n),
      onStack: new Uint8Array(n),
      sccStack: new Uint32Array(n),
      callNode: new Uint32Array(n),
      callPos: new Uint32Array(n),
      order: new Uint32Array(n),
    };
    const { index, low, onStack, sccStack, callNode, callPos, order } = this.tarjan;
    index.fill(NONE);
    let sccTop = 0;
    const callEdges: ArrayLike<number>[] = [];
    let callTop = 0;
    let emitted = 0;
    let counter = 0;
    const empty: ArrayLike<number> = [];
    const components: number[] = [];

    for (let root = 0; root < n; root++) {
      if (this.parent[root] !== root || index[root] !== NONE) continue;
      index[root] = low[root] = counter++;
      sccStack[sccTop++] = root;
      onStack[root] = 1;
      callNode[callTop] = root;
      callEdges[callTop] = this.compactSuccessors(root) ?? empty;
      callPos[callTop] = 0;
      callTop++;
      while (callTop > 0) {
        const frame = callTop - 1;
        const v = callNode[frame] as number;
        const edges = callEdges[frame] as ArrayLike<number>;
        let descended = false;
        let position = callPos[frame] as number;
        while (position < edges.length) {
          const w = this.find(edges[position++] as number);
          if (w === v) continue;
          if (index[w] === NONE) {
            index[w] = low[w] = counter++;
            sccStack[sccTop++] = w;
            onStack[w] = 1;
            callNode[callTop] = w;
            callEdges[callTop] = this.compactSuccessors(w) ?? empty;
            callPos[callTop] = 0;
            callTop++;
            descended = true;
            break;
          }
          if (onStack[w] && (index[w] as number) < (low[v] as number)) low[v] = index[w] as number;
        }
        callPos[frame] = position;
        if (descended) continue;
        callTop--;
        callEdges[callTop] = empty;
        if (low[v] === index[v]) {
          // v roots a component: pop it.
          components.length = 0;
          let w: number;
          do {
            w = sccStack[--sccTop] as number;
            onStack[w] = 0;
            components.push(w);
          } while (w !== v);
          let representative = v;
          for (const member of components) {
            if (member === v) continue;
            const r = this.merge(representative, member);
            if (r !== -1) {
              representative = r;
              this.stats.sccMerges++;
            }
          }
          order[emitted++] = this.find(representative);
        }
        if (callTop > 0) {
          const caller = callNode[callTop - 1] as number;
          if ((low[v] as number) < (low[caller] as number)) low[caller] = low[v] as number;
        }
      }
    }
    // Tarjan emits components sinks first.
    const topological = order.subarray(0, emitted).reverse();
    this.position ??= new Int32Array(n);
    for (let k = 0; k < topological.length; k++) this.position[topological[k] as number] = k;
    return topological;
  }

  /**
   * Visits the dirty representatives in topological order. Each takes the members it gained since
   * its last visit (`pts − propagated`) and applies every rule to just those: HCD merges them with
   * its pair, loads and stores turn them into copy edges (a new edge carries the whole source set),
   * offset constraints shift them, and copy edges push them on.
   */
  async wave(order: Uint32Array): Promise<{ propagated: number; edgesAdded: number }> {
    const { constraints, objectSize } = this.program;
    let propagatedNodes = 0;
    let edgesAdded = 0;
    const delta = this.delta;
    for (let k = 0; k < order.length; k++) {
      // A visit can be long (a node with a large set and many constraints): look at the clock
      // often, but await only when it is time to yield, so cancellation stays prompt.
      if ((k & 31) === 0 && performance.now() - this.lastYield >= this.yieldEveryMs) await this.maybeYield();
      let v = this.find(order[k] as number);
      if (this.dirty[v] === 0) continue;
      this.dirty[v] = 0;
      const pts = this.pts[v];
      if (pts === undefined) continue;
      let done = this.propagated[v];
      if (done === undefined) {
        done = this.pointsPool.create();
        this.propagated[v] = done;
      }
      if (!delta.setToDifference(pts, done)) continue;
      done.unionWith(delta);
      propagatedNodes++;
      const members = delta.toArray();

      // Merging may make v's class absorb another with targets of its own (a list that grows, or
      // a different list): go on until the class's list is the one just walked. A pointee nothing
      // can be loaded from or stored into (objectSize 0: an opaque object whose contents are kept
      // empty) is not on the cycle through *v: it merges with no target, and while v points to
      // nothing else the targets stay apart.
      let targets = this.hcdTargets[v];
      const onCycle = targets === undefined ? members : members.filter((o) => (objectSize[o] as number) > 0);
      if (onCycle.length === 0) targets = undefined;
      while (targets !== undefined) {
        for (let t = 0; t < targets.length; t++) {
          for (const o of onCycle) if (this.merge(o, targets[t] as number) !== -1) this.stats.hcdMerges++;
        }
        v = this.find(v);
        const now = this.hcdTargets[v];
        if (now === targets) {
          // Every target now shares the members' class: one is enough.
          if (targets.length > 1) this.hcdTargets[v] = [this.find(targets[0] as number)];
          break;
        }
        targets = now;
      }

      // The distinct representatives of the fields o + k, per offset k: after HCD and cycle merges
      // many pointees share one, and each (constraint, representative) needs one edge check only.
      let fieldsByOffset: Map<number, number[]> | undefined;
      for (let i = this.complexHead[v] as number; i !== NONE; i = this.nextConstraint[i] as number) {
        const offset = constraints.offset[i] as number;
        fieldsByOffset ??= new Map();
        let fields = fieldsByOffset.get(offset);
        if (fields === undefined) {
          fields = this.distinctFields(members, offset);
          fieldsByOffset.set(offset, fields);
        }
        const isLoad = constraints.kind[i] === ConstraintKind.Load;
        const other = this.find((isLoad ? constraints.dst[i] : constraints.src[i]) as number);
        for (const field of fields) {
          // Load dst = *(v + k): edge field → dst. Store *(v + k) = src: edge src → field.
          const source = isLoad ? field : other;
          const sink = isLoad ? other : field;
          if (source === sink || !this.addEdge(source, sink)) continue;
          edgesAdded++;
          const from = this.pts[source];
          if (from !== undefined && this.ptsOf(sink).unionWith(from)) this.markDirty(sink);
        }
      }

      // Offset constraints of one offset share the shifted set (gcc has a node with 1,041 offset
      // constraints and 3 distinct offsets): build it once, then union it into each destination.
      let shiftedByOffset: Map<number, SparseBitVector | null> | undefined;
      for (let i = this.offsetHead[v] as number; i !== NONE; i = this.nextConstraint[i] as number) {
        const offset = constraints.offset[i] as number;
        shiftedByOffset ??= new Map();
        let shifted = shiftedByOffset.get(offset);
        if (shifted === undefined) {
          shifted = this.shiftedMembers(members, offset, shiftedByOffset.size);
          shiftedByOffset.set(offset, shifted);
        }
        if (shifted === null) continue;
        const w = this.find(constraints.dst[i] as number);
        if (this.ptsOf(w).unionWith(shifted)) this.markDirty(w);
      }
      if (shiftedByOffset !== undefined) for (const shifted of shiftedByOffset.values()) shifted?.clear();

      const successors = this.successorList[v];
      if (successors !== undefined) {
        // Most pushes add nothing (98% on python): a node reached by many paths gets the same
        // delta from each. Equal deltas share an id, and a node skips a delta it absorbed before.
        const id = this.internDelta(delta);
        const lastAbsorbed = this.lastAbsorbed;
        for (let e = 0; e < successors.length; e++) {
          const w = this.find(successors[e] as number);
          if (w === v || lastAbsorbed[w] === id) continue;
          lastAbsorbed[w] = id;
          if (this.ptsOf(w).unionWith(delta)) this.markDirty(w);
        }
      }
    }
    delta.clear();
    this.forgetInternedDeltas();
    this.stats.propagations += propagatedNodes;
    this.stats.edgesAdded += edgesAdded;
    return { propagated: propagatedNodes, edgesAdded };
  }

  countPointsToElements(): number {
    let elements = 0;
    for (let v = 0; v < this.n; v++) if (this.parent[v] === v) elements += this.pts[v]?.elementCount ?? 0;
    return elements;
  }

  async run(): Promise<AndersenResult> {
    this.started = performance.now();
    this.lastYield = this.started;
    this.checkAbort();
    this.events.emit('phase', 'setup', 0);
    this.setup();
    let order: Uint32Array | undefined;
    let edgesAddedLastRound = 0;
    for (;;) {
      const round = ++this.stats.rounds;
      const mergedBefore = this.stats.sccMerges + this.stats.hcdMerges;
      // New copy edges may close cycles and change the order; after a round that added few (under
      // one per 256 nodes) the last order stands: merges since are read through find(), and a cycle
      // left uncollapsed costs time, not precision.
      if (order === undefined || edgesAddedLastRound * 256 > this.n) {
        this.events.emit('phase', 'collapse', round);
        order = this.collapseCycles();
        await this.maybeYield();
      }
      this.events.emit('phase', 'wave', round);
      const { propagated, edgesAdded } = await this.wave(this.visitOrder(order));
      edgesAddedLastRound = edgesAdded;
      const merged = this.stats.sccMerges + this.stats.hcdMerges - mergedBefore;
      this.events.emit('iteration', {
        round,
        propagated,
        edgesAdded,
        merged,
        elapsedMs: performance.now() - this.started,
      });
      if (propagated === 0) break;
    }
    const statistics: SolveStatistics = {
      rounds: this.stats.rounds,
      offlineMerges: this.stats.offlineMerges,
      cycleMerges: this.stats.sccMerges,
      hcdMerges: this.stats.hcdMerges,
      copyEdgesAdded: this.stats.edgesAdded,
      propagations: this.stats.propagations,
      solveMs: performance.now() - this.started,
      pointsToElements: this.countPointsToElements(),
    };
    const result = new AndersenResult(this.program.nodeCount, this.parent, this.pts, statistics);
    this.events.emit('phase', 'done', this.stats.rounds);
    this.events.emit('done', statistics);
    return result;
  }
}

/** `a ∩ b`, kept in `a`'s storage; a missing side means "nothing done", so the result is missing. */
function intersectOrDrop(
  a: SparseBitVector | undefined,
  b: SparseBitVector | undefined,
): SparseBitVector | undefined {
  if (a === undefined) {
    b?.clear();
    return undefined;
  }
  if (b === undefined) {
    a.clear();
    return undefined;
  }
  a.intersectWith(b);
  b.clear();
  return a;
}
