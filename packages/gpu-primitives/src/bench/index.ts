export { primitivesBench } from './primitives';
