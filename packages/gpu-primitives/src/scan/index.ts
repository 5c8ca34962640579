export { scanReference } from './reference';
export {
  type CreateScanOptions,
  createScan,
  Scan,
  type ScanKind,
  type ScanOperator,
  type ScanOptions,
  type ScanPrepareOptions,
} from './scan';
