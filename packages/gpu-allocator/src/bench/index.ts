export { allocatorBench } from './allocator';
export type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';
