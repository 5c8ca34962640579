export { scanReference } from './reference';
export {
  type CreateScanOptions,
  createScan,
  SCAN_POLL_LIMIT,
  Scan,
  type ScanKind,
  type ScanOperator,
  type ScanOptions,
  type ScanPrepareOptions,
  type ScanStrategy,
} from './scan';
