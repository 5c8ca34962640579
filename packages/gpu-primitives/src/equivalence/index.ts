export {
  createEquivalenceClasses,
  EquivalenceClasses,
  type EquivalenceOptions,
  type EquivalenceResult,
} from './equivalence';
export { equivalenceClassesReference } from './reference';
