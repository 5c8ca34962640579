/**
 * WebGPU's flag constants. Dawn's Node binding does not put `GPUBufferUsage` and friends on
 * `globalThis` unless asked to, and a library must not do that for its users, so the values
 * (fixed by the WebGPU specification) live here.
 */
export const BufferUsage = {
  MAP_READ: 0x0001,
  MAP_WRITE: 0x0002,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  INDEX: 0x0010,
  VERTEX: 0x0020,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
  INDIRECT: 0x0100,
  QUERY_RESOLVE: 0x0200,
} as const;

/** `GPUMapMode` values. */
export const MapMode = { READ: 0x0001, WRITE: 0x0002 } as const;

/** `GPUShaderStage` values. */
export const ShaderStage = { VERTEX: 0x1, FRAGMENT: 0x2, COMPUTE: 0x4 } as const;
