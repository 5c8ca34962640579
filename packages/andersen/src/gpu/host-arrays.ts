/**
 * Typed arrays that the host fills before an upload, kept from one solve to the next.
 *
 * Why: a new typed array of many megabytes costs its first touch, one page fault per 4 KiB page.
 * Filling a new 25 MB array took 20 ms on the dev machine against 8 ms for a kept one, and
 * linux's setup fills about 45 MB of them before it uploads
 * (`prepareProgram` and the control buffer's head). The arrays are only read by the uploads
 * (`GpuContext.writeBuffer` copies its data when called), so the next solve may fill them again.
 *
 * Take them with {@link takeHostArrays} and give them back with {@link HostArrays.release} once
 * uploaded. A context keeps one set; a solve that finds it taken (solves running side by side)
 * gets a set of its own, which is dropped when released while the context holds one.
 *
 * @example
 * ```ts
 * const arrays = takeHostArrays(ctx);
 * const parent = arrays.uint32('parent', n); // contents left from an earlier solve: write them all
 * // ... fill, upload ...
 * arrays.release();
 * ```
 */
export interface HostArrays {
  /**
   * A `Uint32Array` of exactly `length` words, a view of the array kept under `role` when that is
   * long enough (else a new one kept from now on). Its words are whatever the last user left:
   * pass `fill` to have them all set.
   */
  uint32(role: string, length: number, fill?: number): Uint32Array;
  /** Bytes the kept arrays hold. */
  readonly bytes: number;
  /** Gives the arrays back to the context for the next solve; the views taken must not be used after. */
  release(): void;
}

/** Where a context's kept set lives; none on a context that has never had a solve release one. */
const keptHostArrays = new WeakMap<object, Map<string, Uint32Array>>();

/**
 * The host arrays kept on `owner` (a GPU context) for the caller alone until it releases them, or
 * a new, empty set. With `keep: false` (the solver without `keepBuffers`) every array is
 * new and nothing is kept.
 *
 * @example
 * ```ts
 * const arrays = takeHostArrays(ctx);
 * const rules = arrays.uint32('rules', 4 * ruleCount, 0);
 * ```
 */
export function takeHostArrays(owner: object, { keep = true }: { keep?: boolean } = {}): HostArrays {
  const kept = keep ? keptHostArrays.get(owner) : undefined;
  if (kept !== undefined) keptHostArrays.delete(owner);
  const arrays = kept ?? new Map<string, Uint32Array>();
  let released = false;
  return {
    uint32(role, length, fill) {
      if (released) throw new Error(`host array '${role}' taken after its set was released`);
      let array = arrays.get(role);
      if (array === undefined || array.length < length) {
        // New memory is zero: no fill needed for 0. A little room spares a solve of a slightly
        // larger program a new array.
        array = new Uint32Array(keep ? Math.ceil(length * 1.0625) : length);
        arrays.set(role, array);
        const view = array.subarray(0, length);
        if (fill !== undefined && fill !== 0) view.fill(fill);
        return view;
      }
      const view = array.subarray(0, length);
      if (fill !== undefined) view.fill(fill);
      return view;
    },
    get bytes() {
      let total = 0;
      for (const array of arrays.values()) total += array.byteLength;
      return total;
    },
    release() {
      if (released) return;
      released = true;
      if (keep && !keptHostArrays.has(owner)) keptHostArrays.set(owner, arrays);
    },
  };
}
