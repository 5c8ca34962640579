/**
 * Readers and writers: Hardekopf benchmark files (plain or gzip), the `gpumorph-constraints 1`
 * text format, its JSON form, and the `gpumorph-points-to 1` solution format (FORMATS.md).
 * Everything here loads in a browser; only {@link readHardekopf} needs Node (it imports node:fs
 * when called).
 * @module
 */
export {
  formatHardekopfConstraints,
  formatHardekopfHcd,
  formatHardekopfNodes,
  formatHardekopfSolution,
  type HardekopfConstraintOptions,
  type HardekopfNodeTable,
  type HardekopfTableOptions,
  parseHardekopfConstraints,
  parseHardekopfHcd,
  parseHardekopfNodes,
  parseHardekopfSolution,
} from './hardekopf';
export { decompress, isGzip, type ParseOptions, type TextInput } from './input';
export { formatConstraintJson, parseConstraintJson } from './json';
export {
  formatPointsTo,
  groupPointsTo,
  type PointsToParseOptions,
  parsePointsTo,
  pointsToOfSolution,
  type SolutionLookup,
} from './points-to';
export {
  HARDEKOPF_UNKNOWN_TARGET,
  type HardekopfSource,
  type ReadHardekopfOptions,
  readHardekopf,
} from './read';
export { formatConstraintText, parseConstraintText } from './text';
export { createReaderThreads, type ReaderThreads, type ReaderThreadsOptions } from './threads';
export type {
  HardekopfFiles,
  HardekopfInput,
  HcdTable,
  PointsToSource,
  ReferenceSolution,
  SolutionClass,
} from './types';
