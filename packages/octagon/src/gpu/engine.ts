import {
  BufferUsage,
  dispatchGrid,
  type GpuContext,
  type Kernel,
  type PassTimer,
} from '@gpumorph/gpu-allocator';
import { type OctagonKind, type OctConstraint, signedNode, toRational } from '../dbm/constraints';
import { createOctagonDomain } from '../dbm/domain';
import { matPos } from '../dbm/layout';
import type { Octagon, WideningOptions } from '../dbm/octagon';
import { OctagonDimensionError, OctagonError } from '../errors';
import { nextUp } from '../numbers/rational';
import {
  batchClosureWgsl,
  blockedFwWgsl,
  type ElementwiseOp,
  elementwiseWgsl,
  strengthenWgsl,
  transferWgsl,
} from './kernels/octagon.wgsl';
import {
  closureLayout,
  elementwiseLayout,
  F32_INF,
  F32_INF_THRESHOLD,
  F32_INPUT_LIM,
  type GpuNumberFormat,
  I32_INF,
  I32_LIM,
  transferLayout,
} from './layout';

/** Values of the `OctParams` uniform. */
interface KernelParams {
  n?: number;
  round?: number;
  a?: number;
  b?: number;
  c?: number;
  cf?: number;
  count?: number;
}

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/**
 * The GPU format of an octagon kind: i32 for integers, f32 for reals.
 *
 * @example
 * ```ts
 * formatOf('int'); // 'i32'
 * ```
 */
export function formatOf(kind: OctagonKind): GpuNumberFormat {
  return kind === 'int' ? 'i32' : 'f32';
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/**
 * The least f32 ≥ `v` (as a double).
 *
 * @example
 * ```ts
 * f32Up(0.1) >= 0.1; // true (0.1 is not an f32)
 * ```
 */
export function f32Up(v: number): number {
  const f = Math.fround(v);
  if (f >= v) return f;
  f32Scratch[0] = f;
  if (f > 0) u32Scratch[0] = (u32Scratch[0] as number) + 1;
  else if (f < 0) u32Scratch[0] = (u32Scratch[0] as number) - 1;
  else return 2 ** -149;
  return f32Scratch[0] as number;
}

/**
 * Encodes an f64 bound for the GPU, never below it: i32 (integers, already integral) saturates to
 * +∞ above LIM and clamps to −LIM below; f32 rounds up, +∞ above 2^60, −2^60 below.
 *
 * @example
 * ```ts
 * encodeBound(Infinity, 'i32'); // 0x3fffffff
 * encodeBound(2 ** 40, 'i32'); // 0x3fffffff too: above LIM is +∞ (sound)
 * ```
 */
export function encodeBound(v: number, format: GpuNumberFormat): number {
  if (format === 'i32') {
    if (v === Number.POSITIVE_INFINITY || v > I32_LIM) return I32_INF;
    return Math.max(Math.ceil(v), -I32_LIM);
  }
  if (v === Number.POSITIVE_INFINITY || v > F32_INPUT_LIM) return F32_INF;
  return f32Up(Math.max(v, -F32_INPUT_LIM));
}

/**
 * Decodes a GPU bound to an f64 (+∞ for the format's infinity).
 *
 * @example
 * ```ts
 * decodeBound(2 ** 100, 'f32'); // Infinity
 * ```
 */
export function decodeBound(v: number, format: GpuNumberFormat): number {
  if (format === 'i32') return v > I32_LIM ? Number.POSITIVE_INFINITY : v;
  return v >= F32_INF_THRESHOLD ? Number.POSITIVE_INFINITY : v;
}

/**
 * A dense octagon matrix on the GPU: the full 2n×2n matrix padded to a multiple of the tile
 * (padding nodes are isolated: +∞ edges, 0 diagonal), i32 or f32 by the octagon's kind.
 * Create with {@link OctagonGpu.upload}; `destroy()` frees the buffer.
 *
 * @example
 * ```ts
 * const dbm = await gpu.upload(octagon);
 * const empty = await gpu.closeDbm(dbm);
 * const closed = await gpu.download(dbm, true, empty);
 * dbm.destroy();
 * ```
 */
export class GpuDbm {
  constructor(
    readonly buffer: GPUBuffer,
    readonly dim: number,
    readonly kind: OctagonKind,
    /** Padded row length. */
    readonly stride: number,
  ) {}

  get format(): GpuNumberFormat {
    return formatOf(this.kind);
  }

  get nodes(): number {
    return 2 * this.dim;
  }

  destroy(): void {
    this.buffer.destroy();
  }

  toString(): string {
    return `GpuDbm(${this.dim} ${this.kind} variables, ${this.format}, stride ${this.stride})`;
  }
}

/** Options of {@link createOctagonGpu}. */
export interface OctagonGpuOptions {
  /** Tile edge of blocked Floyd–Warshall (32 or 64; default 64 when 32 KiB of workgroup memory is available, 32 on software adapters). */
  readonly tile?: 32 | 64;
}

/**
 * The WebGPU engine of the octagon domain: dense closure (blocked Floyd–Warshall in workgroup
 * tiles, then strengthening and the emptiness checks), batched closure of many small octagons in
 * one dispatch, elementwise join/meet/widening/narrowing, and the guard and `x := x + c`
 * transfer kernels. Integer octagons run on i32 with a saturating +∞, real ones on f32 with
 * outward correction (see `layout.ts` and the README for why both are sound).
 *
 * @example
 * ```ts
 * const gpu = createOctagonGpu(ctx);
 * const closed = await gpu.close(octagon); // an Octagon<number> whose closed matrix came from the GPU
 * gpu.destroy();
 * ```
 */
export class OctagonGpu {
  readonly ctx: GpuContext;
  readonly tile: number;
  /** Whether the closure's tiles in workgroup memory have padded rows (when the memory allows). */
  readonly padTiles: boolean;
  readonly #kernels = new Map<string, Kernel>();
  readonly #uniforms: GPUBuffer[] = [];
  #flags: GPUBuffer | undefined;
  #unary: GPUBuffer | undefined;
  #destroyed = false;

  constructor(ctx: GpuContext, options: OctagonGpuOptions = {}) {
    this.ctx = ctx;
    const shared = ctx.limits.maxComputeWorkgroupStorageSize;
    // 64×64 tiles where 32 KiB of workgroup memory allow; 32×32 on software adapters (lavapipe),
    // whose shader compiler takes long over the larger unrolled kernels.
    this.tile = options.tile ?? (shared >= 2 * 64 * 64 * 4 && !ctx.adapter.software ? 64 : 32);
    this.padTiles = 8 * this.tile * (this.tile + 1) <= shared;
    if (2 * this.tile * this.tile * 4 > shared) {
      throw new OctagonError(
        `tile ${this.tile} needs ${2 * this.tile * this.tile * 4} bytes of workgroup memory; the device has ${shared}`,
      );
    }
  }

  /** Largest variable count of a dense octagon this device can hold in one binding. */
  maxDenseDim(kind: OctagonKind = 'real'): number {
    void kind;
    const cells = Math.floor(
      Math.min(this.ctx.limits.maxStorageBufferBindingSize, this.ctx.limits.maxBufferSize) / 4,
    );
    const stride = Math.floor(Math.sqrt(cells) / this.tile) * this.tile;
    return stride / 2;
  }

  /** Padded row length for `dim` variables. */
  strideFor(dim: number): number {
    return Math.max(this.tile, Math.ceil((2 * dim) / this.tile) * this.tile);
  }

  /** Allocates a device matrix for `dim` variables (contents undefined). */
  async allocate(dim: number, kind: OctagonKind): Promise<GpuDbm> {
    this.#alive();
    const stride = this.strideFor(dim);
    if (dim > this.maxDenseDim(kind)) {
      throw new OctagonDimensionError(
        `a dense octagon of ${dim} variables needs ${stride * stride * 4} bytes in one binding; this device allows ${this.ctx.limits.maxStorageBufferBindingSize}`,
      );
    }
    const buffer = await this.ctx.createBuffer({
      label: `gm octagon dbm ${dim}`,
      size: stride * stride * 4,
      usage: STORAGE,
    });
    return new GpuDbm(buffer, dim, kind, stride);
  }

  /** The dense padded encoding of an octagon's matrix (raw by default) for the GPU. */
  encodeDense(
    o: Octagon<number>,
    which: 'raw' | 'closed' = 'raw',
    stride = this.strideFor(o.dim),
  ): Int32Array | Float32Array {
    const format = formatOf(o.kind);
    const out = format === 'i32' ? new Int32Array(stride * stride) : new Float32Array(stride * stride);
    out.fill(format === 'i32' ? I32_INF : F32_INF);
    for (let i = 0; i < stride; i++) out[i * stride + i] = 0;
    const m = which === 'raw' ? o.rawMatrix() : o.closedMatrix();
    if (!m) {
      // Empty: a negative diagonal.
      out[0] = -1;
      return out;
    }
    const N = 2 * o.dim;
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < N; j++) out[i * stride + j] = encodeBound(m[matPos(i, j)] as number, format);
    }
    return out;
  }

  /** Uploads an octagon's matrix (as built). */
  async upload(o: Octagon<number>, which: 'raw' | 'closed' = 'raw'): Promise<GpuDbm> {
    const dbm = await this.allocate(o.dim, o.kind);
    await this.ctx.writeBuffer(dbm.buffer, 0, this.encodeDense(o, which, dbm.stride));
    return dbm;
  }

  /** Reads a device matrix back as an f64 octagon; `closed` marks it as closed (after {@link encodeClose}). */
  async download(dbm: GpuDbm, closed: boolean, empty = false): Promise<Octagon<number>> {
    const D = createOctagonDomain({ engine: 'f64', kind: dbm.kind });
    if (empty) return D.bottom(dbm.dim);
    const bytes = await this.ctx.readBuffer(dbm.buffer, 0, dbm.stride * dbm.stride * 4);
    const raw = dbm.format === 'i32' ? new Int32Array(bytes) : new Float32Array(bytes);
    const N = 2 * dbm.dim;
    const dense = new Float64Array(N * N);
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < N; j++)
        dense[i * N + j] = decodeBound(raw[i * dbm.stride + j] as number, dbm.format);
    }
    const o = D.fromDense(dbm.dim, dense);
    return closed ? o.markClosed() : o;
  }

  /** Compiles the kernels a closure of `dbm` needs. */
  async prepareClose(format: GpuNumberFormat): Promise<void> {
    await Promise.all([
      this.#kernel(`fw diagonal ${format}`),
      this.#kernel(`fw panel ${format}`),
      this.#kernel(`fw rest ${format}`),
      this.#kernel(`strengthen unary ${format}`),
      this.#kernel(`strengthen cells ${format}`),
    ]);
    await this.#scratch(1, 1);
  }

  /**
   * Records the strong (tight) closure of `dbm` (which must be coherent, as every upload is) in
   * place into `encoder`: 3 dispatches per tile
   * round of blocked Floyd–Warshall, then 2 of strengthening; `flags[0]` (of {@link flagsBuffer})
   * becomes non-zero when empty. Call {@link prepareClose} first and reset the flag with
   * {@link encodeResetFlags}.
   */
  encodeClose(encoder: GPUCommandEncoder, dbm: GpuDbm, timer?: PassTimer): void {
    const f = dbm.format;
    const get = (key: string) => {
      const k = this.#kernels.get(`${key} ${f}`);
      if (!k)
        throw new OctagonError(
          `octagon kernel '${key} ${f}' is not prepared: await gpu.prepareClose('${f}') first`,
        );
      return k;
    };
    const flags = this.#flags as GPUBuffer;
    const unary = this.#unary as GPUBuffer;
    const nb = dbm.stride / this.tile;
    if (unary.size < dbm.nodes * 4 || flags.size < (1 + 2 * nb) * 4) {
      throw new OctagonError('scratch too small: await gpu.prepareFor(dbm) first');
    }
    const label = `gm octagon closure ${dbm.dim}`;
    const pass = timer ? timer.beginComputePass(encoder, label) : encoder.beginComputePass({ label });
    const diag = get('fw diagonal');
    const panel = get('fw panel');
    const rest = get('fw rest');
    for (let b = 0; b < nb; b++) {
      const params = this.#uniform(b, { n: dbm.stride, round: b, a: nb });
      const resources = { params: { buffer: params }, m: dbm.buffer, flags, unary };
      pass.setPipeline(diag.pipeline);
      pass.setBindGroup(0, diag.bindGroup(resources));
      pass.dispatchWorkgroups(1);
      if (nb > 1) {
        pass.setPipeline(panel.pipeline);
        pass.setBindGroup(0, panel.bindGroup(resources));
        pass.dispatchWorkgroups(nb);
        pass.setPipeline(rest.pipeline);
        pass.setBindGroup(0, rest.bindGroup(resources));
        pass.dispatchWorkgroups(nb, nb);
      }
    }
    const sp = this.#uniform(nb, { n: dbm.stride, count: dbm.nodes });
    const resources = { params: { buffer: sp }, m: dbm.buffer, flags, unary };
    const su = get('strengthen unary');
    pass.setPipeline(su.pipeline);
    pass.setBindGroup(0, su.bindGroup(resources));
    pass.dispatchWorkgroups(Math.ceil(dbm.nodes / 256));
    const sc = get('strengthen cells');
    pass.setPipeline(sc.pipeline);
    pass.setBindGroup(0, sc.bindGroup(resources));
    const g = dispatchGrid(
      Math.ceil((dbm.nodes * dbm.nodes) / 256),
      this.ctx.limits.maxComputeWorkgroupsPerDimension,
    );
    pass.dispatchWorkgroups(g.x, g.y, g.z);
    pass.end();
  }

  /** The emptiness flags buffer (u32 per octagon). */
  get flagsBuffer(): GPUBuffer | undefined {
    return this.#flags;
  }

  /** Sizes the scratch buffers for a matrix of `nodes` nodes and `octagons` flags. */
  async prepareFor(dbm: GpuDbm): Promise<void> {
    // flags[0]: emptiness; flags[1 …]: the f32 fast-path flag of each row and column panel.
    await this.#scratch(dbm.nodes, 1 + 2 * (dbm.stride / this.tile));
  }

  /** Zeroes the first `count` emptiness flags. */
  encodeResetFlags(encoder: GPUCommandEncoder, count = 1): void {
    encoder.clearBuffer(this.#flags as GPUBuffer, 0, Math.ceil((count * 4) / 4) * 4);
  }

  /** Closes `dbm` on the GPU and tells whether it is empty. */
  async closeDbm(dbm: GpuDbm): Promise<boolean> {
    await this.prepareClose(dbm.format);
    await this.prepareFor(dbm);
    await this.ctx.guard(`gm octagon closure of ${dbm.dim}`, () => {
      const encoder = this.ctx.device.createCommandEncoder({ label: 'gm octagon closure' });
      this.encodeResetFlags(encoder);
      this.encodeClose(encoder, dbm);
      this.ctx.queue.submit([encoder.finish()]);
    });
    const flag = new Uint32Array(await this.ctx.readBuffer(this.#flags as GPUBuffer, 0, 4))[0];
    return flag !== 0;
  }

  /**
   * The octagon with its closure computed on the GPU (raw matrix uploaded, closed matrix read
   * back). A mixed integer/real octagon is closed by the CPU engine (the GPU kernels tighten all
   * variables or none).
   */
  async close(o: Octagon<number>): Promise<Octagon<number>> {
    if (o.rawMatrix() === null) return o;
    if (o.integers) return o.close();
    const dbm = await this.upload(o);
    try {
      const empty = await this.closeDbm(dbm);
      return await this.download(dbm, true, empty);
    } finally {
      dbm.destroy();
    }
  }

  /** Whether the octagon is empty (closure on the GPU). */
  async isEmpty(o: Octagon<number>): Promise<boolean> {
    return (await this.close(o)).isEmpty();
  }

  /** Compiles the elementwise kernel. */
  async prepareElementwise(format: GpuNumberFormat, op: ElementwiseOp): Promise<void> {
    await this.#kernel(`elementwise ${op} ${format}`);
  }

  /** Records `out = op(a, b)` over `count` cells (dense matrices or batches of the same shape). */
  encodeElementwise(
    encoder: GPUCommandEncoder,
    op: ElementwiseOp,
    format: GpuNumberFormat,
    a: GPUBuffer,
    b: GPUBuffer,
    out: GPUBuffer,
    count: number,
    timer?: PassTimer,
  ): void {
    const k = this.#kernels.get(`elementwise ${op} ${format}`);
    if (!k) throw new OctagonError(`elementwise ${op} ${format} is not prepared`);
    const label = `gm octagon ${op}`;
    const pass = timer ? timer.beginComputePass(encoder, label) : encoder.beginComputePass({ label });
    pass.setPipeline(k.pipeline);
    pass.setBindGroup(
      0,
      k.bindGroup({ params: { buffer: this.#uniform(0, { count }, `ew ${count}`) }, a, b, out }),
    );
    const g = dispatchGrid(Math.ceil(count / 256), this.ctx.limits.maxComputeWorkgroupsPerDimension);
    pass.dispatchWorkgroups(g.x, g.y, g.z);
    pass.end();
  }

  /**
   * Join, meet, widening or narrowing of two octagons on the GPU, with the operands the CPU
   * operators use: join closes both (on the GPU), widening and narrowing close the right one and,
   * unless `left: 'raw'` ({@link Octagon.widen}), the left one; meet none. The join is closed; the
   * others are not. Widening here has no thresholds.
   */
  async elementwise(
    op: ElementwiseOp,
    a: Octagon<number>,
    b: Octagon<number>,
    options: Pick<WideningOptions, 'left'> = {},
  ): Promise<Octagon<number>> {
    if (a.dim !== b.dim || a.kind !== b.kind)
      throw new OctagonDimensionError(`${op} of octagons over ${a.dim} and ${b.dim} variables`);
    if (a.integers || b.integers) {
      // mixed integer/real octagons: the CPU operators (see close)
      if (op === 'join') return a.join(b);
      if (op === 'meet') return a.meet(b);
      return op === 'widen' ? a.widen(b, [], options) : a.narrow(b, options);
    }
    let left = a;
    let right = b;
    if (op === 'join') {
      [left, right] = [await this.close(a), await this.close(b)];
      if (left.isEmpty()) return right;
      if (right.isEmpty()) return left;
    } else if (op === 'widen' || op === 'narrow') {
      right = await this.close(b);
      const closedLeft = await this.close(a);
      if (options.left !== 'raw') left = closedLeft;
      if (op === 'widen') {
        if (closedLeft.isEmpty()) return right;
        if (right.isEmpty()) return left;
      } else if (right.isEmpty() || left.rawMatrix() === null) return right;
    } else if (a.rawMatrix() === null || b.rawMatrix() === null) {
      return createOctagonDomain({ engine: 'f64', kind: a.kind }).bottom(a.dim);
    }
    const format = formatOf(a.kind);
    await this.prepareElementwise(format, op);
    const da = await this.upload(left, op === 'join' ? 'closed' : 'raw');
    const db = await this.upload(right, op === 'meet' ? 'raw' : 'closed');
    const out = await this.allocate(a.dim, a.kind);
    try {
      await this.ctx.guard(`gm octagon ${op}`, () => {
        const encoder = this.ctx.device.createCommandEncoder({ label: `gm octagon ${op}` });
        this.encodeElementwise(encoder, op, format, da.buffer, db.buffer, out.buffer, da.stride * da.stride);
        this.ctx.queue.submit([encoder.finish()]);
      });
      return await this.download(out, op === 'join');
    } finally {
      da.destroy();
      db.destroy();
      out.destroy();
    }
  }

  /**
   * APRON's `join_array` and `meet_array` on the GPU: the elementwise join (of closed operands)
   * or meet (of the matrices as built) folded over the octagons; the same octagon as the CPU's
   * `joinArray` / `meetArray`.
   */
  async reduce(op: 'join' | 'meet', os: readonly Octagon<number>[]): Promise<Octagon<number>> {
    const [first, ...rest] = os;
    if (!first) throw new OctagonDimensionError(`${op} of no octagons`);
    let acc = op === 'join' ? await this.close(first) : first;
    for (const o of rest) acc = await this.elementwise(op, acc, o);
    return acc;
  }

  /** Compiles a transfer kernel. */
  async prepareTransfer(format: GpuNumberFormat, op: 'guard' | 'shift'): Promise<void> {
    await this.#kernel(`transfer ${op} ${format}`);
  }

  /** Records the guard `si·x_i + sj·x_j ≤ c` (lowers one cell and its twin; no closure). */
  encodeGuard(encoder: GPUCommandEncoder, dbm: GpuDbm, con: OctConstraint, timer?: PassTimer): void {
    const q = signedNode(con.si, con.i);
    let c = toRational(con.c);
    let p: number;
    if (con.j === undefined || con.sj === undefined) {
      p = q ^ 1;
      c = c.double();
    } else p = signedNode(-con.sj as 1 | -1, con.j);
    const value = dbm.kind === 'int' ? c.floor().toNumber('up') : c.toNumber('up');
    const enc = encodeBound(value, dbm.format);
    const cell = p * dbm.stride + q;
    const twin = (q ^ 1) * dbm.stride + (p ^ 1);
    this.#transfer(
      encoder,
      dbm,
      'guard',
      { a: cell, b: twin, c: dbm.format === 'i32' ? enc : 0, cf: dbm.format === 'f32' ? enc : 0 },
      timer,
    );
  }

  /** Records `x := x + c` (exact, O(n) cells). */
  encodeShift(encoder: GPUCommandEncoder, dbm: GpuDbm, x: number, c: number, timer?: PassTimer): void {
    if (dbm.format === 'i32' && (!Number.isInteger(c) || Math.abs(c) > I32_LIM / 4)) {
      throw new RangeError(`x := x + ${c}: the i32 engine shifts by small integers only`);
    }
    if (dbm.format === 'f32' && Math.fround(c) !== c)
      throw new RangeError(`x := x + ${c}: not an f32 constant`);
    this.#transfer(
      encoder,
      dbm,
      'shift',
      { round: x, count: dbm.nodes, n: dbm.stride, c: dbm.format === 'i32' ? c : 0, cf: c },
      timer,
      Math.ceil((4 * dbm.nodes) / 256),
    );
  }

  /** Batched closure: compiles the kernel for octagons of `dim` variables. */
  async prepareBatch(dim: number, format: GpuNumberFormat): Promise<void> {
    await this.#kernel(`batch ${2 * dim} ${format}`);
    await this.#scratch(1, 1);
  }

  /** Records the closure of `count` octagons of `dim` variables stored as consecutive 2n×2n blocks in `buffer`; `flags` gets one u32 per octagon. */
  encodeBatchClose(
    encoder: GPUCommandEncoder,
    buffer: GPUBuffer,
    flags: GPUBuffer,
    dim: number,
    format: GpuNumberFormat,
    count: number,
    timer?: PassTimer,
  ): void {
    const k = this.#kernels.get(`batch ${2 * dim} ${format}`);
    if (!k) throw new OctagonError(`batch closure of ${dim} variables (${format}) is not prepared`);
    const label = `gm octagon batch closure ${count}×${dim}`;
    const pass = timer ? timer.beginComputePass(encoder, label) : encoder.beginComputePass({ label });
    pass.setPipeline(k.pipeline);
    pass.setBindGroup(
      0,
      k.bindGroup({
        params: { buffer: this.#uniform(0, { count, n: 2 * dim }, `batch ${count}`) },
        m: buffer,
        flags,
        unary: this.#unary as GPUBuffer,
      }),
    );
    const g = dispatchGrid(count, this.ctx.limits.maxComputeWorkgroupsPerDimension);
    pass.dispatchWorkgroups(g.x, g.y, g.z);
    pass.end();
  }

  /** The packed (unpadded) 2n×2n encodings of a batch of octagons of one dimension and kind. */
  encodeBatch(os: readonly Octagon<number>[]): Int32Array | Float32Array {
    const first = os[0];
    if (!first) return new Int32Array(0);
    const N = 2 * first.dim;
    const format = formatOf(first.kind);
    const out = format === 'i32' ? new Int32Array(os.length * N * N) : new Float32Array(os.length * N * N);
    os.forEach((o, k) => {
      if (o.dim !== first.dim || o.kind !== first.kind)
        throw new OctagonDimensionError('a batch holds octagons of one dimension and kind');
      out.set(this.encodeDense(o, 'raw', N), k * N * N);
    });
    return out;
  }

  /** Closes many small octagons (same dimension and kind, 2n ≤ 256) in one dispatch. */
  async closeBatch(os: readonly Octagon<number>[]): Promise<Octagon<number>[]> {
    const first = os[0];
    if (!first) return [];
    if (os.some((o) => o.integers)) return os.map((o) => o.close()); // mixed: see close
    if (2 * first.dim > 256)
      throw new OctagonDimensionError(
        `batched closure holds octagons of at most 128 variables, not ${first.dim}`,
      );
    const format = formatOf(first.kind);
    const N = 2 * first.dim;
    await this.prepareBatch(first.dim, format);
    const data = this.encodeBatch(os);
    const buffer = await this.ctx.createBuffer({
      label: 'gm octagon batch',
      size: Math.max(16, data.byteLength),
      usage: STORAGE,
    });
    const flags = await this.ctx.createBuffer({
      label: 'gm octagon batch flags',
      size: Math.max(16, os.length * 4),
      usage: STORAGE,
    });
    try {
      await this.ctx.writeBuffer(buffer, 0, data);
      await this.ctx.guard('gm octagon batch closure', () => {
        const encoder = this.ctx.device.createCommandEncoder({ label: 'gm octagon batch closure' });
        encoder.clearBuffer(flags);
        this.encodeBatchClose(encoder, buffer, flags, first.dim, format, os.length);
        this.ctx.queue.submit([encoder.finish()]);
      });
      const bytes = await this.ctx.readBuffer(buffer, 0, data.byteLength);
      const values = format === 'i32' ? new Int32Array(bytes) : new Float32Array(bytes);
      const empty = new Uint32Array(await this.ctx.readBuffer(flags, 0, os.length * 4));
      const D = createOctagonDomain({ engine: 'f64', kind: first.kind });
      return os.map((_, k) => {
        if (empty[k] !== 0) return D.bottom(first.dim);
        const dense = new Float64Array(N * N);
        for (let c = 0; c < N * N; c++) dense[c] = decodeBound(values[k * N * N + c] as number, format);
        return D.fromDense(first.dim, dense).markClosed();
      });
    } finally {
      buffer.destroy();
      flags.destroy();
    }
  }

  /** Releases the scratch and parameter buffers. */
  destroy(): void {
    this.#destroyed = true;
    this.#flags?.destroy();
    this.#unary?.destroy();
    for (const u of this.#uniforms) u.destroy();
    this.#uniforms.length = 0;
    this.#uniformKeys.clear();
    this.#kernels.clear();
  }

  toString(): string {
    return `OctagonGpu(tile ${this.tile}, on ${this.ctx.adapter.description || this.ctx.adapter.device})`;
  }

  #alive(): void {
    if (this.#destroyed) throw new OctagonError('OctagonGpu used after destroy()');
  }

  readonly #uniformKeys = new Map<string, GPUBuffer>();

  /** A uniform buffer holding the given parameters (cached by content). */
  #uniform(_slot: number, p: KernelParams, _tag = ''): GPUBuffer {
    const words = new ArrayBuffer(32);
    const u = new Uint32Array(words);
    const i = new Int32Array(words);
    const f = new Float32Array(words);
    u[0] = p.n ?? 0;
    u[1] = p.round ?? 0;
    u[2] = p.a ?? 0;
    u[3] = p.b ?? 0;
    i[4] = p.c ?? 0;
    f[5] = p.cf ?? 0;
    u[6] = p.count ?? 0;
    const key = Array.from(u).join(',');
    let buffer = this.#uniformKeys.get(key);
    if (!buffer) {
      buffer = this.ctx.device.createBuffer({
        label: `gm octagon params ${key}`,
        size: 32,
        usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
      });
      this.ctx.queue.writeBuffer(buffer, 0, words);
      this.#uniformKeys.set(key, buffer);
      this.#uniforms.push(buffer);
    }
    return buffer;
  }

  async #scratch(nodes: number, octagons: number): Promise<void> {
    if (!this.#flags || this.#flags.size < Math.max(16, octagons * 4)) {
      this.#flags?.destroy();
      this.#flags = await this.ctx.createBuffer({
        label: 'gm octagon flags',
        size: Math.max(16, octagons * 4),
        usage: STORAGE,
      });
    }
    if (!this.#unary || this.#unary.size < Math.max(16, nodes * 4)) {
      this.#unary?.destroy();
      this.#unary = await this.ctx.createBuffer({
        label: 'gm octagon unary',
        size: Math.max(16, nodes * 4),
        usage: STORAGE,
      });
    }
  }

  #transfer(
    encoder: GPUCommandEncoder,
    dbm: GpuDbm,
    op: 'guard' | 'shift',
    p: KernelParams,
    timer?: PassTimer,
    workgroups = 1,
  ): void {
    const k = this.#kernels.get(`transfer ${op} ${dbm.format}`);
    if (!k) throw new OctagonError(`transfer ${op} ${dbm.format} is not prepared`);
    const label = `gm octagon ${op}`;
    const pass = timer ? timer.beginComputePass(encoder, label) : encoder.beginComputePass({ label });
    pass.setPipeline(k.pipeline);
    pass.setBindGroup(0, k.bindGroup({ params: { buffer: this.#uniform(0, p) }, m: dbm.buffer }));
    pass.dispatchWorkgroups(workgroups);
    pass.end();
  }

  async #kernel(key: string): Promise<Kernel> {
    const known = this.#kernels.get(key);
    if (known) return known;
    const parts = key.split(' ');
    const format = parts.at(-1) as GpuNumberFormat;
    let code: string;
    let layout = closureLayout(format);
    if (parts[0] === 'fw') {
      code = blockedFwWgsl({
        format,
        tile: this.tile,
        phase: parts[1] as 'diagonal',
        pad: this.padTiles,
        bindings: layout.wgsl(),
      });
    } else if (parts[0] === 'strengthen') {
      code = strengthenWgsl({ format, step: parts[1] as 'unary', bindings: layout.wgsl() });
    } else if (parts[0] === 'batch') {
      const nodes = Number(parts[1]);
      const bytes = nodes * nodes * 4 + nodes * 4;
      const shared = bytes <= this.ctx.limits.maxComputeWorkgroupStorageSize;
      code = batchClosureWgsl({ format, nodes, shared, bindings: layout.wgsl() });
    } else if (parts[0] === 'elementwise') {
      layout = elementwiseLayout(format);
      code = elementwiseWgsl(format, parts[1] as ElementwiseOp, layout.wgsl());
    } else {
      layout = transferLayout(format);
      code = transferWgsl(format, parts[1] as 'guard', layout.wgsl());
    }
    const kernel = (await this.ctx.kernels.get({
      label: `gm octagon ${key}`,
      code,
      layout,
    })) as unknown as Kernel;
    this.#kernels.set(key, kernel);
    return kernel;
  }
}

/**
 * The WebGPU engine of the octagon domain (see {@link OctagonGpu}).
 *
 * @example
 * ```ts
 * const ctx = await acquireGpu();
 * if (ctx) {
 *   const gpu = createOctagonGpu(ctx);
 *   const [a, b] = await gpu.closeBatch([o1, o2]);
 *   gpu.destroy();
 * }
 * ```
 */
export function createOctagonGpu(ctx: GpuContext, options: OctagonGpuOptions = {}): OctagonGpu {
  return new OctagonGpu(ctx, options);
}

/** The upward f32 neighbour (exported for tests). */
export { nextUp as nextUpF64 };
