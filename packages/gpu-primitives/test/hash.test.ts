import { BufferUsage } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRecordHasher, hashRecordsReference } from '../src/index';
import { recordsArb, toHostRecords, uploadRecords } from './records';

describe('hashRecordsReference', () => {
  it('matches MurmurHash3 x86_32 of the words for a known vector', () => {
    // MurmurHash3_x86_32 of the 4 bytes 0x00000000 with seed 0 is 0x2362f9de.
    expect(hashRecordsReference(toHostRecords([[0]]))[0]).toBe(0x2362f9de);
    // Of the empty input with seed 0: 0.
    expect(hashRecordsReference(toHostRecords([[]]))[0]).toBe(0);
  });

  it('masks to hashBits and rejects malformed offsets', () => {
    const records = toHostRecords([[1, 2, 3], [4]]);
    for (const bits of [0, 1, 7, 31]) {
      for (const h of hashRecordsReference(records, { hashBits: bits })) expect(h).toBeLessThan(2 ** bits);
    }
    expect(() =>
      hashRecordsReference({ offsets: Uint32Array.of(0, 3, 2), words: new Uint32Array(3) }),
    ).toThrow(/decrease/);
    expect(() => hashRecordsReference({ offsets: Uint32Array.of(0, 4), words: new Uint32Array(3) })).toThrow(
      /past/,
    );
    expect(() => hashRecordsReference(records, { hashBits: 33 })).toThrow(RangeError);
  });
});

for (const subgroups of [true, false]) {
  describeGpu(
    'record hashing',
    (gpu) => {
      it('hashes records bit-for-bit like the CPU reference', async () => {
        const hasher = createRecordHasher(gpu.ctx);
        await fc.assert(
          fc.asyncProperty(
            recordsArb(300),
            fc.nat({ max: 2 ** 32 - 1 }),
            fc.integer({ min: 0, max: 32 }),
            async (records, seed, hashBits) => {
              const buffers = await uploadRecords(gpu.ctx, records);
              const hashes = await gpu.ctx.createBuffer({
                label: 'hashes',
                size: Math.max(4, buffers.count * 4),
                usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
              });
              await hasher.run(buffers, hashes, { seed, hashBits });
              const got = new Uint32Array(await gpu.ctx.readBuffer(hashes, 0, buffers.count * 4));
              expect([...got]).toEqual([...hashRecordsReference(records, { seed, hashBits })]);
              hashes.destroy();
              buffers.destroy();
            },
          ),
          { numRuns: 12 },
        );
        hasher.destroy();
      });
    },
    { subgroups },
  );
}
