/** Words of bits per element: 30 × 32 = 960 members. */
export const BITS_WORDS = 30;
/** Members one element can hold. */
export const MEMBERS_PER_ELEMENT = BITS_WORDS * 32;
/** Word of an element holding its base (the member range `[base · 960, base · 960 + 960)`). */
export const BASE_WORD = 30;
/** Word of an element holding the index of the next element, or {@link NO_ELEMENT}. */
export const NEXT_WORD = 31;
/** Words per element: 128 bytes, one coalesced transaction for a 32-lane subgroup. */
export const ELEMENT_WORDS = 32;
/** End of a list (and the head of an empty vector). */
export const NO_ELEMENT = 0xffff_ffff;
/** Largest member: ids are u32. */
export const MAX_MEMBER = 0xffff_ffff;
