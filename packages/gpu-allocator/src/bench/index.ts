export { allocatorBench } from './allocator';
export { collectGarbage } from './gc';
export type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';
