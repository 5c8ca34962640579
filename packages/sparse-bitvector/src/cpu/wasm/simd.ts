import type { GrowableMemory } from '@gpumorph/gpu-allocator/cpu';
import { SIMD_KERNELS_BASE64 } from './kernels';

/** The part of the WebAssembly API used here (typed locally: the project compiles without DOM typings). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number }) => GrowableMemory;
}

/**
 * Element-wise set operations on 128-byte elements in a WebAssembly memory, four words per SIMD
 * instruction. Addresses are byte offsets of elements (element index × 128).
 */
export interface SimdKernels {
  /** The memory the kernels work on; a pool keeps its elements in it. */
  readonly memory: GrowableMemory;
  /** `dst |= src` over the 30 bit words; nonzero when `dst` gained a bit. */
  orInto(dst: number, src: number): number;
  /** `out = a & ~b` over the 30 bit words; nonzero when `out` is not empty. */
  andNotInto(out: number, a: number, b: number): number;
  /** Nonzero when `a` has a bit `b` lacks. */
  andNotAny(a: number, b: number): number;
  /** Copies the 30 bit words of `src` to `dst`. */
  copyBits(dst: number, src: number): void;
}

let compiled: object | null | undefined;

/**
 * A fresh memory with the SIMD kernels bound to it, or `undefined` where WebAssembly SIMD is not
 * available (the pool then falls back to word loops in JavaScript).
 *
 * @example
 * ```ts
 * const kernels = createSimdKernels();
 * const pool = new SparseBitVectorPool({ simd: kernels !== undefined });
 * ```
 */
export function createSimdKernels(): SimdKernels | undefined {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return undefined;
  if (compiled === undefined) {
    try {
      const bytes = Uint8Array.from(atob(SIMD_KERNELS_BASE64), (c) => c.charCodeAt(0));
      compiled = wasm.validate(bytes) ? new wasm.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  if (compiled === null) return undefined;
  const memory = new wasm.Memory({ initial: 1, maximum: 65_536 });
  const exports = new wasm.Instance(compiled, { env: { memory } }).exports as unknown as Omit<
    SimdKernels,
    'memory'
  >;
  return {
    memory,
    orInto: exports.orInto,
    andNotInto: exports.andNotInto,
    andNotAny: exports.andNotAny,
    copyBits: exports.copyBits,
  };
}
