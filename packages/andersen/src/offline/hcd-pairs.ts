/**
 * A hybrid-cycle-detection table (Hardekopf & Lin, CGO'07): what the offline analysis found.
 * `offlineMerges` holds pairs `y, x` meaning "merge y into x before solving" (pointer-equivalent
 * variables); `online` holds pairs `y, x` meaning "every object x ever points to is
 * pointer-equivalent to y" (a cycle through `*x` the offline pass could see but not resolve).
 */
export interface HcdPairs {
  readonly offlineMerges: Uint32Array;
  readonly online: Uint32Array;
}
