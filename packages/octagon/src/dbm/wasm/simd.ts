import { CLOSURE_KERNEL_BASE64 } from './kernels';

/** The part of the WebAssembly API used here (typed locally: the project compiles without DOM typings). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}

/** The closure's kernels over a WebAssembly memory (see `scripts/build-wasm.mjs`); arguments are byte offsets. */
export interface ClosureSweep {
  readonly memory: WasmMemory;
  /** `m[i][j] = min(m[i][j], a[i] + bs[j], b[i] + as[j])` over every stored cell: one pivot. */
  sweep(m: number, nodes: number, a: number, b: number, as: number, bs: number): void;
  /**
   * `dst[j] = min(dst[j], min over kk < k of a[kk] + P[kk][j])` for `j < len` (even), the panel P
   * packed in chunks of 8 columns (`P[kk][j]` at double `(j >> 3)·8k + 8kk + (j & 7)`).
   */
  minplus(dst: number, len: number, a: number, panel: number, k: number): void;
}

let compiled: object | null | undefined;

/**
 * A fresh WebAssembly memory of at least `bytes` bytes with the SIMD sweep bound to it, or
 * `undefined` where WebAssembly SIMD is unavailable or the size exceeds 4 GiB (the closure then
 * stays in JavaScript). A fresh memory per closure, so a large one is freed with it.
 *
 * @example
 * ```ts
 * const k = createClosureSweep(1 << 20);
 * if (k) k.sweep(0, nodes, aOffset, bOffset, asOffset, bsOffset);
 * ```
 */
export function createClosureSweep(bytes: number): ClosureSweep | undefined {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined || bytes > 2 ** 32 - 65_536) return undefined;
  if (compiled === undefined) {
    try {
      const code = Uint8Array.from(atob(CLOSURE_KERNEL_BASE64), (c) => c.charCodeAt(0));
      compiled = wasm.validate(code) ? new wasm.Module(code) : null;
    } catch {
      compiled = null;
    }
  }
  if (compiled === null) return undefined;
  const pages = Math.max(1, Math.ceil(bytes / 65_536));
  let memory: WasmMemory;
  try {
    memory = new wasm.Memory({ initial: pages, maximum: pages });
  } catch {
    return undefined;
  }
  const exports = new wasm.Instance(compiled, { env: { memory } }).exports as {
    sweep: ClosureSweep['sweep'];
    minplus: ClosureSweep['minplus'];
  };
  return { memory, sweep: exports.sweep, minplus: exports.minplus };
}
