import { ConstraintKind, type ConstraintProgram } from '../model/program';

/**
 * The definition of Andersen's analysis executed literally: apply every constraint to plain
 * `Set<number>`s until nothing changes. Quadratic and slow, and obviously right: the model the
 * engines are tested against on small programs.
 *
 * @example
 * ```ts
 * const pts = solveAndersenReference(program);
 * pts[p]; // Set of the objects p may point to
 * ```
 */
export function solveAndersenReference(program: ConstraintProgram): Set<number>[] {
  const { nodeCount, objectSize, constraints: c } = program;
  const pts = Array.from({ length: nodeCount }, () => new Set<number>());
  const addAll = (into: Set<number>, from: Iterable<number>): boolean => {
    const before = into.size;
    for (const x of from) into.add(x);
    return into.size !== before;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = 0; i < c.length; i++) {
      const dst = c.dst[i] as number;
      const src = c.src[i] as number;
      const k = c.offset[i] as number;
      const dstSet = pts[dst] as Set<number>;
      const srcSet = pts[src] as Set<number>;
      switch (c.kind[i] as ConstraintKind) {
        case ConstraintKind.AddressOf:
          if (!dstSet.has(src)) {
            dstSet.add(src);
            changed = true;
          }
          break;
        case ConstraintKind.Copy:
          if (addAll(dstSet, [...srcSet])) changed = true;
          break;
        case ConstraintKind.Load:
          for (const o of [...srcSet]) {
            if (k < (objectSize[o] as number) && addAll(dstSet, [...(pts[o + k] as Set<number>)]))
              changed = true;
          }
          break;
        case ConstraintKind.Store:
          for (const o of [...dstSet]) {
            if (k < (objectSize[o] as number) && addAll(pts[o + k] as Set<number>, [...srcSet]))
              changed = true;
          }
          break;
        case ConstraintKind.Offset:
          for (const o of [...srcSet]) {
            if (k < (objectSize[o] as number) && !dstSet.has(o + k)) {
              dstSet.add(o + k);
              changed = true;
            }
          }
          break;
      }
    }
  }
  return pts;
}
