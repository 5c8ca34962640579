export { SCC_WORKGROUP_SIZE } from './layout';
export { assertEdgeList, type EdgeList, stronglyConnectedComponentsReference } from './reference';
export {
  createStronglyConnectedComponents,
  type SccResult,
  type SccRunOptions,
  StronglyConnectedComponents,
} from './scc';
