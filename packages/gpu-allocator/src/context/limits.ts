/** The device limits gpumorph asks for: as large as the adapter allows, since the analyses are memory-bound. */
export const REQUESTED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  'maxUniformBufferBindingSize',
  'maxBindGroups',
  'maxBindingsPerBindGroup',
] as const;

/** Name of one limit gpumorph requests. */
export type RequestedLimit = (typeof REQUESTED_LIMITS)[number];

/** The granted values of the limits gpumorph relies on, plus the alignment of binding offsets. */
export type GpuLimits = Readonly<Record<RequestedLimit | 'minStorageBufferOffsetAlignment', number>>;

/** Features gpumorph uses when present; each kernel has a path for their absence. */
export const OPTIONAL_FEATURES = ['subgroups', 'timestamp-query'] as const;

/** Reads the limits gpumorph relies on from a device's or adapter's `limits` object. */
export function readLimits(limits: GPUSupportedLimits): GpuLimits {
  const out: Record<string, number> = {};
  for (const name of REQUESTED_LIMITS) out[name] = Number(limits[name]);
  out.minStorageBufferOffsetAlignment = Number(limits.minStorageBufferOffsetAlignment);
  return out as GpuLimits;
}

/** Every numeric limit of a `GPUSupportedLimits`, for reports (`gpumorph doctor`). */
export function allLimits(limits: GPUSupportedLimits): Record<string, number> {
  const out: Record<string, number> = {};
  // The limits live as getters on the prototype, so `for…in` is needed rather than Object.keys.
  for (const key in limits) {
    const value = (limits as unknown as Record<string, unknown>)[key];
    if (typeof value === 'number') out[key] = value;
  }
  return out;
}
