export {
  BASE_WORD,
  BITS_WORDS,
  ELEMENT_WORDS,
  MAX_MEMBER,
  MEMBERS_PER_ELEMENT,
  NEXT_WORD,
  NO_ELEMENT,
} from './cpu/layout';
export { type ShiftLimit, SparseBitVector, SparseBitVectorPool } from './cpu/sparse-bitvector';
export * from './gpu/index';
