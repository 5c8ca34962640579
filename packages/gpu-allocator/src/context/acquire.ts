import { GpuLimitError, GpuUnavailableError } from '../errors';
import { type GpuAdapterReport, type GpuBackend, GpuContext } from './context';
import { allLimits, REQUESTED_LIMITS } from './limits';

/** Options of {@link acquireGpu}. */
export interface AcquireGpuOptions {
  /** Use this device instead of requesting one; the context will not destroy it. */
  readonly device?: GPUDevice;
  /** Use this `GPU` object (e.g. `navigator.gpu` or one from `webgpu`'s `create()`). */
  readonly gpu?: GPU;
  /**
   * Extra Dawn toggles for Node, e.g. `['enable-dawn-features=allow_unsafe_apis']` (the CLI adds
   * those of `GPUMORPH_DAWN_FLAGS`). Timestamp quantization is always disabled. Toggle lists under
   * the same key (`enable-dawn-features=…`, `disable-dawn-features=…`) from all sources are joined,
   * so one cannot hide another.
   */
  readonly dawnFlags?: readonly string[];
  /**
   * Keep Dawn's robustness transform, which clamps every storage-buffer index in every shader
   * (Node only; a browser decides for itself). Default `false`: gpumorph runs only WGSL it
   * generates, whose indices stay in bounds by construction (pools check their capacity; the
   * tests run every kernel against a CPU model), as ONNX Runtime's and Skia Graphite's Dawn
   * backends do for theirs. On the H100 the clamps cost the Andersen engine 5–10% (php 1,926 ms
   * with them, 1,782 without). True turns them back on, e.g. to debug a kernel (the CLI's
   * `GPUMORPH_ROBUSTNESS=1`).
   */
  readonly robustness?: boolean;
  /**
   * The most bytes of released buffers the context keeps for reuse (`GpuContext.reuseBuffer`):
   * default 16 GiB on a hardware adapter, 256 MiB on a software one; 0 keeps none.
   */
  readonly retainBytes?: number;
  readonly powerPreference?: GPUPowerPreference;
  /**
   * Throw {@link GpuUnavailableError} instead of returning `null` when no adapter is found
   * (default false; the CLI sets it under `GPUMORPH_REQUIRE_GPU=1`).
   */
  readonly require?: boolean;
  /**
   * Called with the label and WGSL source of every shader module the context's kernel cache
   * compiles, before compiling it (the CLI prints them under `GPUMORPH_DUMP_WGSL=1`).
   */
  readonly onShader?: ((label: string, code: string) => void) | undefined;
  /** Use subgroup built-ins when the adapter has them (default true). False forces the workgroup-memory paths. */
  readonly subgroups?: boolean;
  /** Use timestamp queries when the adapter has them (default true). */
  readonly timestampQuery?: boolean;
  /** Accept a software adapter such as llvmpipe (default true). */
  readonly allowSoftware?: boolean;
  /** Minimum limits the caller needs; a weaker adapter gives {@link GpuLimitError}. */
  readonly minimumLimits?: Readonly<Partial<Record<(typeof REQUESTED_LIMITS)[number], number>>>;
}

const BASE_DAWN_FLAGS = ['disable-dawn-features=timestamp_quantization'];

/**
 * Finds a WebGPU adapter and returns a {@link GpuContext} on its device, or `null` when there is
 * none (so callers can fall back to a CPU engine). In Node it loads the optional `webgpu` package
 * (Dawn) on demand; in a browser it uses `navigator.gpu`; or it wraps a device you already have.
 * It asks for the adapter's largest buffer, binding and workgroup-memory limits, and for
 * `subgroups` and `timestamp-query` when present.
 *
 * @example
 * ```ts
 * import { acquireGpu } from '@gpumorph/gpu-allocator';
 * const ctx = await acquireGpu();
 * console.log(ctx ? `running on ${ctx}` : 'no GPU: using the CPU engine');
 * ctx?.destroy(); // lets Node exit
 * ```
 */
export async function acquireGpu(options: AcquireGpuOptions = {}): Promise<GpuContext | null> {
  const required = options.require === true;
  if (options.device) return wrapDevice(options.device, { backend: 'external', onShader: options.onShader });

  let found: { gpu: GPU; backend: GpuBackend } | { failure: string; cause?: unknown };
  try {
    found = await findGpu(options);
  } catch (cause) {
    found = {
      failure: `loading WebGPU failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
    };
  }
  const unavailable = (why: string, cause?: unknown): null => {
    if (required) {
      throw new GpuUnavailableError(
        `no WebGPU adapter (${why}); run \`gpumorph doctor\` for how to install a software adapter ` +
          '(Mesa lavapipe)',
        { cause },
      );
    }
    return null;
  };
  if ('failure' in found) return unavailable(found.failure, found.cause);

  const adapterOptions: GPURequestAdapterOptions = {};
  if (options.powerPreference) adapterOptions.powerPreference = options.powerPreference;
  const adapter = await found.gpu.requestAdapter(adapterOptions);
  if (!adapter) return unavailable(`${found.backend}: requestAdapter() returned null`);
  const info = await adapterInfo(adapter);
  if (options.allowSoftware === false && isSoftware(info)) {
    return unavailable(`only a software adapter was found (${info?.description || info?.device})`);
  }

  const requiredLimits: Record<string, number> = {};
  for (const name of REQUESTED_LIMITS) {
    const available = Number(adapter.limits[name]);
    const minimum = options.minimumLimits?.[name];
    if (minimum !== undefined && available < minimum) {
      throw new GpuLimitError(
        `adapter offers ${name} = ${available}, below the ${minimum} required`,
        name,
        minimum,
        available,
      );
    }
    requiredLimits[name] = available;
  }
  const requiredFeatures: GPUFeatureName[] = [];
  const subgroups = options.subgroups !== false && adapter.features.has('subgroups');
  const timestampQuery = options.timestampQuery !== false && adapter.features.has('timestamp-query');
  if (subgroups) requiredFeatures.push('subgroups');
  if (timestampQuery) requiredFeatures.push('timestamp-query');

  const device = await adapter.requestDevice({
    label: 'gpumorph',
    requiredFeatures,
    requiredLimits,
  });
  return new GpuContext({
    device,
    report: makeReport(
      found.backend,
      info,
      device,
      found.backend !== 'node-dawn' || robustnessWanted(options),
    ),
    features: { subgroups, timestampQuery },
    ...(options.retainBytes !== undefined ? { retainBytes: options.retainBytes } : {}),
    ...(options.onShader ? { onShader: options.onShader } : {}),
    ownsDevice: true,
  });
}

/**
 * A {@link GpuContext} around a device the caller created; `destroy()` leaves the device alive.
 *
 * @example
 * ```ts
 * const device = await (await navigator.gpu.requestAdapter())!.requestDevice();
 * const ctx = wrapDevice(device);
 * ```
 */
export function wrapDevice(
  device: GPUDevice,
  options: { backend?: GpuBackend; onShader?: ((label: string, code: string) => void) | undefined } = {},
): GpuContext {
  const info = (device as GPUDevice & { adapterInfo?: GPUAdapterInfo }).adapterInfo;
  return new GpuContext({
    device,
    report: makeReport(options.backend ?? 'external', info, device, true),
    features: {
      subgroups: device.features.has('subgroups'),
      timestampQuery: device.features.has('timestamp-query'),
    },
    ownsDevice: false,
    ...(options.onShader ? { onShader: options.onShader } : {}),
  });
}

/**
 * The Dawn instances `acquireGpu` created, by flag list, kept for the life of the process.
 *
 * dawn.node delivers every callback (device loss, `mapAsync`, error scopes, pipelines) from an
 * `instance.ProcessEvents()` call it queues with `setImmediate` while any of them is pending. A
 * `GPU` object dropped when its device is destroyed can be garbage-collected before that queued
 * call runs, which then uses the freed instance: Node aborts with `std::system_error`, segfaults
 * or hangs at exit (acquire, destroy and exit crashed in 10 of 10 runs on lavapipe). Dropping it
 * only after the device is lost is not enough (the next queued call still comes). Kept here, no
 * instance is freed while Dawn may still call into it; an instance with nothing pending holds no
 * handle, so Node still exits, and later contexts with the same flags reuse it.
 */
const DAWN_INSTANCES = new Map<string, GPU>();

async function findGpu(
  options: AcquireGpuOptions,
): Promise<{ gpu: GPU; backend: GpuBackend } | { failure: string }> {
  if (options.gpu) return { gpu: options.gpu, backend: 'external' };
  const navigatorGpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;
  if (navigatorGpu) return { gpu: navigatorGpu, backend: 'browser' };
  const isNode =
    typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node ===
    'string';
  if (!isNode) return { failure: 'navigator.gpu is missing in this browser' };
  let webgpu: { create(flags: string[]): GPU };
  try {
    // A variable specifier keeps bundlers from pulling Dawn into browser builds.
    const specifier = 'webgpu';
    webgpu = (await import(/* @vite-ignore */ /* webpackIgnore: true */ specifier)) as typeof webgpu;
  } catch {
    return { failure: "the optional 'webgpu' package is not installed (npm install webgpu)" };
  }
  const flags = mergeDawnFlags([
    ...BASE_DAWN_FLAGS,
    ...(robustnessWanted(options) ? [] : ['enable-dawn-features=disable_robustness']),
    ...(options.dawnFlags ?? []),
  ]);
  const key = flags.join('\n');
  let gpu = DAWN_INSTANCES.get(key);
  if (!gpu) {
    gpu = webgpu.create(flags);
    DAWN_INSTANCES.set(key, gpu);
  }
  return { gpu, backend: 'node-dawn' };
}

async function adapterInfo(adapter: GPUAdapter): Promise<GPUAdapterInfo | undefined> {
  if (adapter.info) return adapter.info;
  const legacy = adapter as GPUAdapter & { requestAdapterInfo?: () => Promise<GPUAdapterInfo> };
  return legacy.requestAdapterInfo?.();
}

function isSoftware(info: GPUAdapterInfo | undefined): boolean {
  if (!info) return false;
  const extended = info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  if (extended.isFallbackAdapter) return true;
  const text = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`;
  return /llvmpipe|lavapipe|swiftshader|\bwarp\b|software|microsoft basic render/i.test(text);
}

function makeReport(
  backend: GpuBackend,
  info: GPUAdapterInfo | undefined,
  device: GPUDevice,
  robustness: boolean,
): GpuAdapterReport {
  const extended = info as
    | (GPUAdapterInfo & { subgroupMinSize?: number; subgroupMaxSize?: number })
    | undefined;
  return {
    backend,
    vendor: info?.vendor ?? '',
    architecture: info?.architecture ?? '',
    device: info?.device ?? '',
    description: info?.description ?? '',
    software: isSoftware(info),
    subgroupMinSize: Number(extended?.subgroupMinSize ?? 0),
    subgroupMaxSize: Number(extended?.subgroupMaxSize ?? 0),
    features: [...device.features].sort(),
    limits: allLimits(device.limits),
    robustness,
  };
}

/**
 * Dawn's Node bindings keep one value per flag name, so `enable-dawn-features=a` and
 * `enable-dawn-features=b` given apart would leave only `b`: the toggle lists of one name are
 * joined (in order, without repeats) into one flag.
 *
 * @example
 * ```ts
 * mergeDawnFlags(['enable-dawn-features=a', 'backend=vulkan', 'enable-dawn-features=b,a']);
 * // ['enable-dawn-features=a,b', 'backend=vulkan']
 * ```
 */
export function mergeDawnFlags(flags: readonly string[]): string[] {
  const lists = new Map<string, string[]>();
  const merged: string[] = [];
  for (const flag of flags) {
    const equals = flag.indexOf('=');
    const name = equals < 0 ? flag : flag.slice(0, equals);
    if (name !== 'enable-dawn-features' && name !== 'disable-dawn-features') {
      merged.push(flag);
      continue;
    }
    let list = lists.get(name);
    if (!list) {
      list = [];
      lists.set(name, list);
      merged.push(name);
    }
    for (const toggle of flag.slice(equals + 1).split(',')) {
      if (toggle && !list.includes(toggle)) list.push(toggle);
    }
  }
  return merged.map((flag) => {
    const list = lists.get(flag);
    return list ? `${flag}=${list.join(',')}` : flag;
  });
}

function robustnessWanted(options: AcquireGpuOptions): boolean {
  return options.robustness === true;
}
