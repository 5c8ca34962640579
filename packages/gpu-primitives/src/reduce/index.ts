export {
  type CreateReduceOptions,
  createReduce,
  Reduce,
  type ReduceOperator,
  type ReduceOptions,
} from './reduce';
export { reduceReference } from './reference';
