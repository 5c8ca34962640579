import fc from 'fast-check';
import type { ConstraintProgram } from '../src/model/program';
import type { HcdPairs } from '../src/offline/hcd-pairs';
import { constraintProgram } from '../src/testing/index';

/**
 * A random program with an HCD table drawn over its nodes: offline merges (chains and repeats
 * among them) and online pairs, for the tests of the host's and the GPU's preparation.
 */
export const programWithHcdPairs = (maxNodes: number) =>
  constraintProgram({ maxNodes, maxConstraints: 3 * maxNodes, names: false }).chain((program) => {
    const node = fc.nat({ max: program.nodeCount - 1 });
    const pairs = fc.array(fc.tuple(node, node), { maxLength: program.nodeCount });
    return fc
      .tuple(fc.constant(program), pairs, pairs)
      .map(([p, merges, online]): [ConstraintProgram, HcdPairs] => [
        p,
        { offlineMerges: Uint32Array.from(merges.flat()), online: Uint32Array.from(online.flat()) },
      ]);
  });
