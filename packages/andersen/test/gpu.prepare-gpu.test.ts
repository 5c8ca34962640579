import { BufferUsage } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { takeHostArrays } from '../src/gpu/host-arrays';
import { CONTROL_HEAD_WORDS, PAIR_POOL, STATUS } from '../src/gpu/layout';
import { prepareProgram } from '../src/gpu/prepare/prepare';
import {
  countForGpu,
  encodePrepare,
  prepareKernels,
  programWords,
  uploadProgram,
} from '../src/gpu/prepare/prepare-gpu';
import { readHardekopf } from '../src/io/read';
import type { ConstraintProgram } from '../src/model/program';
import type { HcdPairs } from '../src/offline/hcd-pairs';
import { benchmarkPrefix } from './benchmarks';
import { programWithHcdPairs } from './hcd-programs';

describeGpu('the GPU preparation of a program (prepare.wgsl.ts)', (gpu) => {
  /** Runs the preparation alone and reads back what it wrote. */
  const prepareOnGpu = async (program: ConstraintProgram, hcd: HcdPairs, compositeBits: number) => {
    const ctx = gpu.ctx;
    const n = program.nodeCount;
    const counts = countForGpu(program, hcd);
    const pairRoom = Math.max(1, counts.initialPairs.count);
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    const make = (label: string, words: number) =>
      ctx.createBuffer({ label, size: 4 * Math.max(4, words), usage: storage });
    // The control buffer's head starts at 0 (the counters); the union–find words hold junk the
    // preparation must overwrite.
    const control = await make('control', CONTROL_HEAD_WORDS + n);
    await ctx.writeBuffer(control, 4 * CONTROL_HEAD_WORDS, new Uint32Array(n).fill(0xdead_beef));
    const programBuffer = await make('program', programWords(program, hcd));
    const pairKeys = await make('keys', pairRoom);
    const pairValues = await make('values', pairRoom);
    const rules = await make('rules', 4 * Math.max(1, counts.ruleCount));
    const arrays = takeHostArrays({}, { keep: false });
    const sizes = await uploadProgram(ctx, programBuffer, program, hcd, arrays, compositeBits);
    arrays.release();
    expect(sizes).toEqual({
      nodes: n,
      merges: hcd.offlineMerges.length / 2,
      constraints: program.constraints.length,
    });
    const kernels = await prepareKernels(ctx);
    await ctx.guard('prepare', () => {
      const encoder = ctx.device.createCommandEncoder();
      encodePrepare(
        encoder,
        kernels,
        { control, program: programBuffer, pairKeys, pairValues, rules },
        sizes,
      );
      ctx.queue.submit([encoder.finish()]);
    });
    const words = async (buffer: GPUBuffer, from: number, count: number) =>
      count === 0 ? new Uint32Array(0) : new Uint32Array(await ctx.readBuffer(buffer, 4 * from, 4 * count));
    const status = await words(control, 0, CONTROL_HEAD_WORDS);
    const pairCount = status[STATUS.pairCount] as number;
    const result = {
      counts,
      status,
      parent: await words(control, CONTROL_HEAD_WORDS, n),
      keys: await words(pairKeys, 0, pairCount),
      values: await words(pairValues, 0, pairCount),
      rules: await words(rules, 0, 4 * (status[STATUS.preparedRules] as number)),
    };
    for (const buffer of [control, programBuffer, pairKeys, pairValues, rules]) buffer.destroy();
    return result;
  };

  /** Pairs as sorted "key:value" strings, rules as sorted 4-tuples: the GPU appends in any order. */
  const pairList = (keys: Uint32Array, values: Uint32Array) =>
    Array.from(keys, (key, i) => `${key}:${values[i]}`).sort();
  const ruleList = (rules: Uint32Array, count: number) =>
    Array.from({ length: count }, (_, i) => [...rules.subarray(4 * i, 4 * i + 4)].join(',')).sort();

  const expectSameAsHost = async (program: ConstraintProgram, hcd: HcdPairs, compositeBits: number) => {
    const host = prepareProgram(program, hcd);
    const got = await prepareOnGpu(program, hcd, compositeBits);
    expect([...got.parent]).toEqual([...host.parent]);
    expect(got.status[STATUS.offlineMerges]).toBe(host.offlineMerges);
    const pairs = host.initialPairs;
    expect(got.status[STATUS.pairCount]).toBe(pairs.count);
    expect(got.status[STATUS.sortedCount]).toBe(pairs.count);
    // The host's keys are composed the way the solver composes them before its upload.
    const hostKeys = Array.from(pairs.keys.subarray(0, pairs.count), (key, i) =>
      compositeBits === 0 ? key : ((key << compositeBits) | ((pairs.sources[i] as number) >>> 5)) >>> 0,
    );
    expect(pairList(got.keys, got.values)).toEqual(
      pairList(Uint32Array.from(hostKeys), pairs.sources.subarray(0, pairs.count)),
    );
    expect(got.counts.ruleCount).toBe(host.ruleCount);
    expect(got.status[STATUS.preparedRules]).toBe(host.ruleCount);
    expect(ruleList(got.rules, host.ruleCount)).toEqual(ruleList(host.rules, host.ruleCount));
    // Every address-of pair is there, and no copy pair between one class.
    expect(got.counts.initialPairs.points).toBe(pairs.points);
    for (let i = 0; i < got.keys.length; i++) {
      const key = (got.keys[i] as number) >>> compositeBits;
      if ((key & 1) === PAIR_POOL.edges) expect(got.values[i]).not.toBe(key >>> 1);
    }
  };

  it('unites the offline merges and emits the pairs and rules the host does, on random programs', async () => {
    await fc.assert(
      fc.asyncProperty(programWithHcdPairs(40), fc.constantFrom(0, 4), async ([program, hcd], bits) => {
        await expectSameAsHost(program, hcd, bits);
      }),
      { numRuns: 40 },
    );
  });

  it("prepares ex (PPoPP'12 suite, with its HCD table) as the host does, across several workgroups", async () => {
    const input = await readHardekopf({ prefix: benchmarkPrefix('ex') });
    if (!input.hcd) throw new Error('ex has no HCD table');
    await expectSameAsHost(input.program, input.hcd, 9);
  });
});
