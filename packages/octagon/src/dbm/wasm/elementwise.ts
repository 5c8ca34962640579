/**
 * The WebAssembly SIMD kernels of the cell-by-cell operators (`scripts/build-wasm.mjs`): an
 * instance per memory, a registry of the memories whose matrices the kernels can read in place
 * (the matrix pools').
 * @module
 */
import { ELEMENTWISE_KERNEL_BASE64, ELEMENTWISE_KERNEL_SHARED_BASE64 } from './elementwise-kernels';
import type { WasmApi, WasmMemory } from './simd';

/** A cell-by-cell operator with a kernel: join (`max`), meet (`min`), widening, narrowing. */
export type CellOp = 'max' | 'min' | 'widen' | 'narrow';

/** The kernels bound to one memory; arguments are byte offsets (16-byte aligned) and cell counts (even). */
export interface ElementwiseKernel {
  readonly memory: WasmMemory;
  readonly ops: Record<CellOp, (d: number, a: number, b: number, len: number) => void>;
  /** 1 when every `a[p] ≤ b[p]`. */
  le(a: number, b: number, len: number): number;
  /** 1 when every `a[p] = b[p]`. */
  eq(a: number, b: number, len: number): number;
}

let compiled: object | null | undefined;
let compiledShared: object | null | undefined;
const inPlace = new WeakMap<ArrayBufferLike, ElementwiseKernel>();

/** The compiled module of `base64`, or null where WebAssembly SIMD (or shared memory) is missing. */
function compile(base64: string): object | null {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return null;
  try {
    const code = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    return wasm.validate(code) ? new wasm.Module(code) : null;
  } catch {
    return null;
  }
}

/** The kernels' module importing a shared memory (the worker threads' pools), if it compiles here. */
export function sharedElementwiseModule(): object | undefined {
  if (compiledShared === undefined) compiledShared = compile(ELEMENTWISE_KERNEL_SHARED_BASE64);
  return compiledShared ?? undefined;
}

/** Lets the kernels read the matrices of `kernel.memory` in place ({@link kernelOf}). */
export function registerInPlace(kernel: ElementwiseKernel): void {
  inPlace.set(kernel.memory.buffer, kernel);
}

/**
 * A fixed-size WebAssembly memory of `bytes` bytes (never grown, so views on it stay valid) with
 * the kernels bound to it, or `undefined` where WebAssembly SIMD is unavailable or the size is
 * past 4 GiB. With `inPlace`, the kernels read matrices of that memory where they lie.
 *
 * @example
 * ```ts
 * const k = createElementwiseKernel(1 << 20, true);
 * if (k) k.ops.max(0, 4096, 8192, 512); // 512 cells at byte 0 := max of those at 4096 and 8192
 * ```
 */
export function createElementwiseKernel(
  bytes: number,
  inPlaceKernels = false,
): ElementwiseKernel | undefined {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined || bytes > 2 ** 32 - 65_536) return undefined;
  if (compiled === undefined) compiled = compile(ELEMENTWISE_KERNEL_BASE64);
  if (compiled === null) return undefined;
  const pages = Math.max(1, Math.ceil(bytes / 65_536));
  let memory: WasmMemory;
  try {
    memory = new wasm.Memory({ initial: pages, maximum: pages });
  } catch {
    return undefined;
  }
  const e = new wasm.Instance(compiled, { env: { memory } }).exports as Record<
    CellOp | 'le' | 'eq',
    (...args: number[]) => number
  >;
  const kernel: ElementwiseKernel = {
    memory,
    ops: { max: e.max, min: e.min, widen: e.widen, narrow: e.narrow },
    le: e.le,
    eq: e.eq,
  };
  if (inPlaceKernels) registerInPlace(kernel);
  return kernel;
}

/** The kernel that reads `m` in place (a pool's matrix), if any. */
export function kernelOf(m: Float64Array): ElementwiseKernel | undefined {
  return m.byteOffset % 16 === 0 ? inPlace.get(m.buffer) : undefined;
}

/**
 * `dst := op(a, b)` through the SIMD kernel when the three lie in one pool memory (in place: no
 * allocation, no copy); false otherwise (the caller runs its JavaScript loop). Copying other
 * matrices through a scratch memory was measured slower than the loop at 256 and 512 variables.
 */
export function simdBinary(op: CellOp, dst: Float64Array, a: Float64Array, b: Float64Array): boolean {
  const len = a.length;
  if (len % 2 !== 0) return false; // a half matrix has an even count (2n(n+1)); the kernels take pairs
  const k = kernelOf(a);
  if (k === undefined || kernelOf(b) !== k || kernelOf(dst) !== k) return false;
  k.ops[op](dst.byteOffset, a.byteOffset, b.byteOffset, len);
  return true;
}
