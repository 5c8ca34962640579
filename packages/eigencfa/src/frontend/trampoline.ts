/**
 * Deep recursion without a deep call stack: a recursive step is a generator that `yield`s the
 * generator of each sub-step and receives its result; {@link runTrampoline} runs them on an
 * explicit stack. The front end uses it for programs nested thousands of levels deep. An exception
 * thrown by a sub-step reaches the step that yielded it, as with ordinary calls.
 * @module
 */

/** A recursive computation returning `T`. */
export type Tramp<T> = Generator<Tramp<unknown>, T, unknown>;

/**
 * Runs a trampolined computation to its result.
 *
 * @example
 * ```ts
 * function* depth(n: number): Tramp<number> { return n === 0 ? 0 : 1 + ((yield depth(n - 1)) as number); }
 * runTrampoline(depth(100_000)); // 100000
 * ```
 */
export function runTrampoline<T>(root: Tramp<T>): T {
  const stack: Tramp<unknown>[] = [root];
  let input: unknown;
  // An exception of a sub-step is thrown into the step that yielded it (which may catch it).
  let thrown: { error: unknown } | null = null;
  for (;;) {
    const top = stack[stack.length - 1] as Tramp<unknown>;
    let step: IteratorResult<Tramp<unknown>, unknown>;
    try {
      step = thrown === null ? top.next(input) : top.throw(thrown.error);
      thrown = null;
    } catch (error) {
      stack.pop();
      if (stack.length === 0) throw error;
      thrown = { error };
      continue;
    }
    if (step.done) {
      stack.pop();
      if (stack.length === 0) return step.value as T;
      input = step.value;
    } else {
      stack.push(step.value);
      input = undefined;
    }
  }
}
