// Every reader checks a file's node count against PROGRAM_LIMITS when it reads the count, before
// allocating anything of that size: a positioned ConstraintLimitError, at once.
import { describe, expect, it } from 'vitest';
import {
  ConstraintLimitError,
  PROGRAM_LIMITS,
  parseConstraintJson,
  parseConstraintText,
  parseHardekopfNodes,
  parseHardekopfSolution,
  parsePointsTo,
} from '../src/index';

const readers: Record<string, { read: (n: number) => unknown; at: string }> = {
  'gpumorph-constraints text': {
    read: (n) => parseConstraintText(`gpumorph-constraints 1\nnodes ${n}\n`, { file: 'p.txt' }),
    at: 'p.txt:2:7:',
  },
  'gpumorph-constraints JSON': {
    read: (n) =>
      parseConstraintJson(`{"format":"gpumorph-constraints","version":1,"nodeCount":${n},"constraints":[]}`, {
        file: 'p.json',
      }),
    at: 'p.json:1:',
  },
  'Hardekopf nodes': {
    read: (n) => parseHardekopfNodes(`${n}\n0\n0\n`, { file: 'n.txt' }),
    at: 'n.txt:1:1:',
  },
  'Hardekopf solution': {
    read: (n) => parseHardekopfSolution(`${n}\n`, { file: 's.txt' }),
    at: 's.txt:1:1:',
  },
  'gpumorph-points-to': {
    read: (n) => parsePointsTo(`gpumorph-points-to 1\nnodes ${n}\n`, { file: 'q.txt' }),
    at: 'q.txt:',
  },
};

describe.each(Object.entries(readers))('%s', (_, { read, at }) => {
  it.each([PROGRAM_LIMITS.nodes + 1, 200_000_000, 2_000_000_000])(
    'rejects %i nodes before allocating',
    (n) => {
      let error: unknown;
      try {
        read(n);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConstraintLimitError);
      expect(error).toMatchObject({ limit: 'nodes', requested: n });
      expect((error as Error).message.startsWith(at)).toBe(true);
      expect((error as Error).message).toContain(`is above the limit of ${PROGRAM_LIMITS.nodes} nodes`);
    },
  );
});
