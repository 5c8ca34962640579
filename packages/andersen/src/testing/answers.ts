import type { PointsToSource } from '../io/types';

/** A points-to answer that also names each node's representative (an `AndersenResult`). */
export type RepresentedAnswer = PointsToSource & { representative(v: number): number };

/** What {@link compareAnswers} found. */
export interface AnswerComparison {
  /** Nodes whose sets differ (node counts that differ count every node of the larger). */
  readonly differing: number;
  /** The first node that differs, or -1. */
  readonly firstNode: number;
}

const equalMembers = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * Compares two answers node by node, each pair of representatives once: the nodes of a class share
 * their representative's set, so answers of hundreds of millions of points-to edges compare in the
 * time of their distinct sets.
 *
 * @example
 * ```ts
 * const { differing } = compareAnswers(gpuResult, cpuResult);
 * ```
 */
export function compareAnswers(a: RepresentedAnswer, b: RepresentedAnswer): AnswerComparison {
  const n = Math.min(a.nodeCount, b.nodeCount);
  let differing = Math.max(a.nodeCount, b.nodeCount) - n;
  let firstNode = differing > 0 ? n : -1;
  const known = new Map<number, boolean>();
  for (let v = 0; v < n; v++) {
    const key = a.representative(v) * 0x1_0000_0000 + b.representative(v);
    let same = known.get(key);
    if (same === undefined) {
      same = equalMembers(a.pointsTo(v), b.pointsTo(v));
      known.set(key, same);
    }
    if (!same) {
      differing++;
      if (firstNode < 0 || v < firstNode) firstNode = v;
    }
  }
  return { differing, firstNode };
}

/**
 * A 64-bit fingerprint (16 hex digits) of every node's set, in node order: equal answers have equal
 * fingerprints whatever their representatives, so a long run can compare a solve with one made
 * long before without keeping that one's sets.
 *
 * @example
 * ```ts
 * const first = answerFingerprint(result);
 * // … many solves later
 * answerFingerprint(again) === first;
 * ```
 */
export function answerFingerprint(answer: RepresentedAnswer): string {
  const setHash = new Map<number, [number, number]>();
  let h1 = 0x811c9dc5 ^ answer.nodeCount;
  let h2 = 0x9e3779b9 ^ answer.nodeCount;
  for (let v = 0; v < answer.nodeCount; v++) {
    const r = answer.representative(v);
    let hash = setHash.get(r);
    if (hash === undefined) {
      let a = 0x01000193;
      let b = 0x27d4eb2f;
      const members = answer.pointsTo(v);
      for (let i = 0; i < members.length; i++) {
        const m = members[i] as number;
        a = Math.imul(a ^ m, 0x01000193);
        b = Math.imul(b + m, 0x85ebca6b) ^ (b >>> 13);
      }
      hash = [a >>> 0, b >>> 0];
      setHash.set(r, hash);
    }
    h1 = Math.imul(h1 ^ hash[0], 0x01000193) >>> 0;
    h2 = (Math.imul(h2 ^ hash[1], 0xc2b2ae35) + v) >>> 0;
  }
  return h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0');
}
