/**
 * Typed errors of gpumorph's GPU layer. Every WebGPU validation, out-of-memory, internal and
 * device-lost error reaches the caller as one of these, never as a console warning.
 *
 * @example
 * ```ts
 * try {
 *   await ctx.kernels.get({ label: 'bad', code: 'fn main( {' });
 * } catch (error) {
 *   if (error instanceof GpuValidationError) console.error(error.compilerMessages);
 * }
 * ```
 * @module
 */

/** Base class of every error gpumorph throws on purpose. */
export class GpumorphError extends Error {
  override name = 'GpumorphError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No WebGPU adapter was found while one was required (`acquireGpu({ require: true })`; the CLI's `GPUMORPH_REQUIRE_GPU=1`). */
export class GpuUnavailableError extends GpumorphError {
  override name = 'GpuUnavailableError';
}

/** The adapter cannot provide a limit or feature the caller asked for. */
export class GpuLimitError extends GpumorphError {
  override name = 'GpuLimitError';
  constructor(
    message: string,
    /** The limit or feature that fell short. */
    readonly limit: string,
    /** What was requested. */
    readonly requested: number | string,
    /** What the adapter or device offers. */
    readonly available: number | string,
  ) {
    super(message);
  }
}

/** One message of the WGSL compiler, positions 1-based as the compiler reports them. */
export interface WgslCompilerMessage {
  readonly type: 'error' | 'warning' | 'info';
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** WebGPU rejected a call: bad WGSL, a binding that does not fit its layout, a buffer too small… */
export class GpuValidationError extends GpumorphError {
  override name = 'GpuValidationError';
  constructor(
    message: string,
    /** Label of the object or operation that failed (e.g. the shader module's label). */
    readonly label: string,
    /** The WGSL compiler's messages, when the failure came from a shader module. */
    readonly compilerMessages: readonly WgslCompilerMessage[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The device could not allocate the memory an operation needed. */
export class GpuOutOfMemoryError extends GpumorphError {
  override name = 'GpuOutOfMemoryError';
  constructor(
    message: string,
    readonly label: string,
    /** Bytes the failing allocation asked for, when known. */
    readonly requestedBytes?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The implementation reported an internal error (e.g. a shader too large for the driver). */
export class GpuInternalError extends GpumorphError {
  override name = 'GpuInternalError';
  constructor(
    message: string,
    readonly label: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The device was lost (driver reset, `destroy()`, GPU process crash); the context is unusable. */
export class GpuDeviceLostError extends GpumorphError {
  override name = 'GpuDeviceLostError';
  constructor(
    message: string,
    /** `'destroyed'` when our own `destroy()` caused it, else `'unknown'`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An element pool could not grow to the capacity a step needed. */
export class PoolCapacityError extends GpumorphError {
  override name = 'PoolCapacityError';
  constructor(
    message: string,
    readonly pool: string,
    readonly requestedElements: number,
    readonly maxElements: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Converts a `GPUError` popped from an error scope into the matching typed error. */
export function toTypedGpuError(
  error: GPUError,
  label: string,
  compilerMessages: readonly WgslCompilerMessage[] = [],
  requestedBytes?: number,
): GpumorphError {
  const text = `${label}: ${error.message.trim()}`;
  if (isErrorKind(error, 'GPUOutOfMemoryError')) {
    return new GpuOutOfMemoryError(text, label, requestedBytes, { cause: error });
  }
  if (isErrorKind(error, 'GPUValidationError')) {
    return new GpuValidationError(text, label, compilerMessages, { cause: error });
  }
  return new GpuInternalError(text, label, { cause: error });
}

// Dawn's Node binding does not install GPU* classes on globalThis unless asked to, so the class
// is recognised by name as well as by identity.
function isErrorKind(error: GPUError, kind: 'GPUOutOfMemoryError' | 'GPUValidationError'): boolean {
  const ctor = (globalThis as Record<string, unknown>)[kind];
  if (typeof ctor === 'function' && error instanceof ctor) return true;
  return error.constructor?.name === kind;
}
