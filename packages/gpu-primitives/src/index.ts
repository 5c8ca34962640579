export { opCombine, opCombineWgsl, opIdentity, opIdentityWgsl, type ScanOp } from './common/ops';
export { subgroupLayoutIsLinear } from './common/subgroup-layout';
export { resolveTiling, type Tiling, type TilingOptions } from './common/tiling';
export { UniformArena } from './common/uniforms';
export {
  laneBuiltins,
  type WorkgroupBlockOptions,
  workgroupReduceWgsl,
  workgroupScanWgsl,
} from './common/workgroup.wgsl';
export * from './compact/index';
export * from './equivalence/index';
export * from './hash/index';
export * from './merge-sort/index';
export * from './reduce/index';
export * from './scan/index';
export * from './scc/index';
export * from './sort/index';
