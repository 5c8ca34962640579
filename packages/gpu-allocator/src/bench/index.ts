export { allocatorBench } from './allocator';
export { collectGarbage, settleGarbage } from './gc';
export type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';
