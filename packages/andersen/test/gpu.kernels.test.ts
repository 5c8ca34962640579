import { BITS_WORDS, MEMBERS_PER_ELEMENT } from '@gpumorph/sparse-bitvector';
import { describe, expect, it } from 'vitest';
import { PARAMS_FIELDS, paramsOffset, paramsWords } from '../src/gpu/layout';
import {
  SOLVER_ENTRY_POINTS,
  type SolverKernelParams,
  solverKernelsWgsl,
} from '../src/gpu/module/solver.wgsl';

// The solver module's WGSL as its phases build it, without a GPU: what the host dispatches must be
// there, built the same way every time, and code shared by both pools must be the same for each.
const variants: readonly { name: string; params: SolverKernelParams }[] = [
  {
    name: 'subgroup teams',
    params: { team: 'subgroup', teamWorkgroupSize: 64, laneWords: 1, layoutWgsl: '' },
  },
  {
    name: 'workgroup teams, gated update, no shortcuts',
    params: {
      team: 'workgroup',
      teamWorkgroupSize: 32,
      laneWords: 1,
      layoutWgsl: '',
      gateUpdate: true,
      activeLists: false,
      deltaBitmap: false,
    },
  },
];

describe.each(variants)('the solver kernels ($name)', ({ params }) => {
  const code = solverKernelsWgsl(params);

  it('define every entry point the host dispatches, each as a compute entry point', () => {
    for (const entry of Object.keys(SOLVER_ENTRY_POINTS)) {
      expect(code).toMatch(new RegExp(`@compute @workgroup_size\\([^)]*\\)\\s*fn ${entry}\\(`));
    }
  });

  it('are the same text each time they are built (the kernel cache is keyed by it)', () => {
    expect(solverKernelsWgsl(params)).toBe(code);
  });

  it("insert a sorted run into either pool's lists with the same code", () => {
    const of = (pool: 'pts' | 'edg') => {
      const start = code.indexOf(`fn ${pool}_insert_sorted(`);
      expect(start).toBeGreaterThan(0);
      return code.slice(start, code.indexOf('\n}\n', start)).replaceAll(`${pool}_`, 'P_');
    };
    expect(of('edg')).toBe(of('pts'));
    expect(of('pts')).toContain(`m / ${MEMBERS_PER_ELEMENT}u`);
    expect(of('pts')).toContain(`w < ${BITS_WORDS}u`);
  });
});

describe('the parameters', () => {
  it('are declared, filled and written from one list of fields', () => {
    const code = solverKernelsWgsl({ team: 'subgroup', teamWorkgroupSize: 64, laneWords: 1, layoutWgsl: '' });
    const struct = /struct AndersenParams \{ ([^}]*) \}/.exec(code)?.[1] ?? '';
    expect(struct.split(', ')).toEqual(PARAMS_FIELDS.map((field) => `${field}: u32`));
    const values = Object.fromEntries(PARAMS_FIELDS.map((field, i) => [field, 100 + i])) as Record<
      (typeof PARAMS_FIELDS)[number],
      number
    >;
    const words = paramsWords(values);
    for (const field of PARAMS_FIELDS) expect(words[paramsOffset(field) / 4]).toBe(values[field]);
    // The guess is written as two words at once: its levels follow its capacity.
    expect(paramsOffset('guess_levels')).toBe(paramsOffset('guess_sort_capacity') + 4);
  });
});
