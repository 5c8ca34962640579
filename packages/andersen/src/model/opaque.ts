import { ConstraintModelError } from '../errors';
import type { HcdPairs } from '../offline/hcd-pairs';
import { ConstraintKind, type ConstraintProgram } from './program';

/**
 * What a solve does with the contents of *opaque objects*: objects that stand for memory the
 * program does not model, such as the unknown target of integer-to-pointer casts (node 1 of the
 * Hardekopf files, `i2p`).
 *
 * - `tracked` (the model's plain semantics): an opaque object is an ordinary one-field object;
 *   stores through a pointer to it fill its points-to set and loads read it back.
 * - `empty`: pointers may point to it, but it has no modelled contents: loads, stores and field
 *   offsets through a pointer to it do nothing and its own points-to set stays empty. This is the
 *   convention of the Hardekopf reference solutions (`_correct_soln_001`), measured: with it the
 *   engines equal the reference on every variable of ex, gcc, perl, python and vim, node 1
 *   included; with `tracked` vim differs on 10 variables.
 */
export type OpaqueContents = 'tracked' | 'empty';

/** Which objects are opaque and what happens to their contents (see {@link OpaqueContents}). */
export interface OpaqueObjects {
  /** The opaque objects' node ids (each must be an object: `objectSize > 0`). */
  readonly nodes: ArrayLike<number>;
  readonly contents: OpaqueContents;
}

/** A program and HCD table rewritten for an opaque-object convention, and what the rewrite did. */
export interface OpaqueRewrite {
  readonly program: ConstraintProgram;
  readonly hcd: HcdPairs | undefined;
  /** Constraints dropped because they assign to an opaque object directly. */
  readonly droppedConstraints: number;
  /** HCD pairs (offline and online) dropped because they would give an opaque object contents. */
  readonly droppedHcdPairs: number;
}

/**
 * Rewrites a program so that any engine solves it under {@link OpaqueContents} `empty`: each
 * opaque object keeps its address (it stays a valid `&` target) but its `objectSize` becomes 0, so
 * every load, store and offset through a pointer to it does nothing (`k < objectSize` fails, in
 * every engine and in the literal reference alike); constraints that assign to it directly are
 * dropped; HCD offline merges that join it with another node and online pairs whose target class
 * is it are dropped (a merge would share another node's set with it). The engines' online HCD
 * never merges a pointee whose `objectSize` is 0 (nothing can be loaded from or stored into it, so
 * the cycle through `*x` does not pass through it). With `tracked` the inputs come back unchanged.
 *
 * @example
 * ```ts
 * const { program, hcd } = applyOpaqueObjects(input.program, input.hcd, { nodes: [1], contents: 'empty' });
 * ```
 */
export function applyOpaqueObjects(
  program: ConstraintProgram,
  hcd: HcdPairs | undefined,
  opaque: OpaqueObjects,
): OpaqueRewrite {
  if (opaque.contents === 'tracked' || opaque.nodes.length === 0) {
    return { program, hcd, droppedConstraints: 0, droppedHcdPairs: 0 };
  }
  const isOpaque = new Uint8Array(program.nodeCount);
  for (let i = 0; i < opaque.nodes.length; i++) {
    const node = opaque.nodes[i] as number;
    if (!(node >= 0 && node < program.nodeCount) || (program.objectSize[node] as number) === 0) {
      throw new ConstraintModelError(`opaque object ${node} is not an object of this program`);
    }
    isOpaque[node] = 1;
  }
  const objectSize = Uint32Array.from(program.objectSize);
  for (let v = 0; v < program.nodeCount; v++) if (isOpaque[v]) objectSize[v] = 0;

  const c = program.constraints;
  const keep = new Uint8Array(c.length);
  let kept = 0;
  for (let i = 0; i < c.length; i++) {
    // Every kind but a store writes pts(dst); a store writes the pointees of dst, handled above.
    const writesOpaque = c.kind[i] !== ConstraintKind.Store && isOpaque[c.dst[i] as number] === 1;
    if (!writesOpaque) {
      keep[i] = 1;
      kept++;
    }
  }
  const pick = <T extends Uint8Array | Uint32Array>(from: T, into: T): T => {
    for (let i = 0, j = 0; i < c.length; i++) if (keep[i]) into[j++] = from[i] as number;
    return into;
  };
  const constraints = {
    length: kept,
    kind: pick(c.kind, new Uint8Array(kept)),
    dst: pick(c.dst, new Uint32Array(kept)),
    src: pick(c.src, new Uint32Array(kept)),
    offset: pick(c.offset, new Uint32Array(kept)),
  };

  let droppedHcdPairs = 0;
  const filterPairs = (pairs: Uint32Array, drop: (y: number, x: number) => boolean): Uint32Array => {
    const out: number[] = [];
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const y = pairs[i] as number;
      const x = pairs[i + 1] as number;
      if (drop(y, x)) droppedHcdPairs++;
      else out.push(y, x);
    }
    return Uint32Array.from(out);
  };
  const rewrittenHcd = hcd && {
    offlineMerges: filterPairs(hcd.offlineMerges, (y, x) => isOpaque[y] === 1 || isOpaque[x] === 1),
    online: filterPairs(hcd.online, (y) => isOpaque[y] === 1),
  };
  return {
    program: { ...program, objectSize, constraints },
    hcd: rewrittenHcd,
    droppedConstraints: c.length - kept,
    droppedHcdPairs,
  };
}
