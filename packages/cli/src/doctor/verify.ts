import { INVALID_ELEMENT } from '@gpumorph/gpu-allocator';

/**
 * Deterministic pseudo-random allocation requests: invocation `i` asks for `0..maxPerInvocation`
 * elements (a hash of `i` and `seed`, so every run of `gpumorph doctor` checks the same pattern).
 *
 * @example
 * ```ts
 * const requests = probeRequests(4096, 3); // Uint32Array of 4096 values in 0..3
 * ```
 */
export function probeRequests(count: number, maxPerInvocation: number, seed = 0x6d2b79f5): Uint32Array {
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    // splitmix32-style finaliser of (i, seed)
    let h = Math.imul(i ^ seed, 0x9e3779b1) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
    out[i] = h % (maxPerInvocation + 1);
  }
  return out;
}

/** What the allocation probe produced, as read back from the GPU. */
export interface ProbeOutcome {
  /** Elements invocation `i` asked for. */
  readonly requests: Uint32Array;
  /** Rounds the probe ran (`out` has `requests.length * rounds` words). */
  readonly rounds: number;
  /** `out[i * rounds + r]`: the element invocation `i` got in round `r`, or `INVALID_ELEMENT`. */
  readonly out: Uint32Array;
  /** The pool's elements `[0, limit)` read back (`limit * elementWords` words). */
  readonly elements: Uint32Array;
  readonly elementWords: number;
  /**
   * How many elements the probe can have handed out: the total demand when the pool was large
   * enough, else the pool's capacity (then exactly `[0, capacity)` must have been handed out).
   */
  readonly limit: number;
}

/** Result of {@link verifyProbe}. */
export interface ProbeVerdict {
  /** Valid element indices found in `out`. */
  readonly valid: number;
  /** Every way the outcome breaks the allocator's contract (empty when it is correct); at most 8 listed. */
  readonly problems: readonly string[];
}

/**
 * Checks on the CPU what the allocation probe did: the valid indices are distinct and are exactly
 * `[0, limit)`; an invocation got nothing in rounds past its request; when the whole demand fit,
 * every request was served; and word 0 of each element holds the invocation that got it.
 *
 * @example
 * ```ts
 * const verdict = verifyProbe({ requests, rounds: 3, out, elements, elementWords: 32, limit: total });
 * if (verdict.problems.length > 0) console.error(verdict.problems.join('\n'));
 * ```
 */
export function verifyProbe(outcome: ProbeOutcome): ProbeVerdict {
  const { requests, rounds, out, elements, elementWords, limit } = outcome;
  const demand = requests.reduce((sum, r) => sum + r, 0);
  const mustServeAll = limit >= demand;
  const problems: string[] = [];
  let hidden = 0;
  const problem = (text: string) => {
    if (problems.length < 8) problems.push(text);
    else hidden++;
  };
  if (out.length !== requests.length * rounds) {
    problem(`probe returned ${out.length} words, expected ${requests.length * rounds}`);
    return { valid: 0, problems };
  }
  const owner = new Int32Array(limit).fill(-1);
  let valid = 0;
  for (let i = 0; i < requests.length; i++) {
    const asked = requests[i] ?? 0;
    for (let r = 0; r < rounds; r++) {
      const element = out[i * rounds + r] ?? INVALID_ELEMENT;
      if (element === INVALID_ELEMENT) {
        if (r < asked && mustServeAll)
          problem(`invocation ${i} round ${r}: no element although the pool had room`);
        continue;
      }
      if (r >= asked) {
        problem(`invocation ${i} round ${r}: got element ${element} without asking (asked ${asked})`);
        continue;
      }
      if (element >= limit) {
        problem(`invocation ${i} round ${r}: element ${element} outside [0, ${limit})`);
        continue;
      }
      const previous = owner[element] ?? -1;
      if (previous !== -1) {
        problem(`element ${element} handed out twice (invocations ${previous} and ${i})`);
        continue;
      }
      owner[element] = i;
      valid++;
      const word0 = elements[element * elementWords];
      if (word0 !== i) problem(`element ${element}: word 0 is ${word0}, expected invocation ${i}`);
    }
  }
  if (valid !== limit) {
    const missing: number[] = [];
    for (let e = 0; e < limit && missing.length < 3; e++) if (owner[e] === -1) missing.push(e);
    problem(
      `${valid} distinct elements handed out, expected exactly [0, ${limit}) (missing e.g. ${missing.join(', ')})`,
    );
  }
  if (hidden > 0) problems.push(`… and ${hidden} more`);
  return { valid, problems };
}
