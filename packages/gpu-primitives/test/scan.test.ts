import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CreateScanOptions,
  createScan,
  type ScanKind,
  type ScanOperator,
  type ScanStrategy,
  scanReference,
} from '../src/scan/index';

const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

async function upload(ctx: GpuContext, label: string, data: Uint32Array): Promise<GPUBuffer> {
  const buffer = await ctx.createBuffer({ label, size: Math.max(16, data.byteLength), usage });
  if (data.length > 0) await ctx.writeBuffer(buffer, 0, data);
  return buffer;
}

interface Case {
  values: Uint32Array;
  kind: ScanKind;
  op: ScanOperator;
  heads?: Uint32Array;
  inPlace?: boolean;
}

/** Runs one scan on the GPU and returns its output. */
async function gpuScan(ctx: GpuContext, c: Case, options: CreateScanOptions = {}): Promise<Uint32Array> {
  const scan = createScan(ctx, options);
  const input = await upload(ctx, 'scan input', c.values);
  const output = c.inPlace
    ? input
    : await upload(ctx, 'scan output', new Uint32Array(c.values.length).fill(0xdead));
  const heads = c.heads ? await upload(ctx, 'scan heads', c.heads) : undefined;
  try {
    await scan.run({
      input,
      output,
      count: c.values.length,
      kind: c.kind,
      op: c.op,
      ...(heads ? { segmentHeads: heads } : {}),
    });
    if (c.values.length === 0) return new Uint32Array(0);
    return new Uint32Array(await ctx.readBuffer(output, 0, c.values.length * 4));
  } finally {
    scan.destroy();
    for (const b of new Set([input, output, heads])) b?.destroy();
  }
}

function expectScan(actual: Uint32Array, c: Case): void {
  const expected = scanReference(c.values, {
    kind: c.kind,
    op: c.op,
    ...(c.heads ? { segmentHeads: c.heads } : {}),
  });
  expect(actual.length).toBe(expected.length);
  // Compare as arrays but report only the first mismatch (inputs can be large).
  const first = expected.findIndex((v, i) => actual[i] !== v);
  expect(
    first === -1 ? 'equal' : `first mismatch at ${first}: got ${actual[first]}, want ${expected[first]}`,
  ).toBe('equal');
}

const u32 = fc.nat({ max: 0xffff_ffff });
const kinds = ['exclusive', 'inclusive'] as const;
const ops = ['add', 'max'] as const;

describe('scanReference', () => {
  it('matches hand-computed scans', () => {
    expect([...scanReference(Uint32Array.of(1, 2, 3, 4), { kind: 'exclusive', op: 'add' })]).toEqual([
      0, 1, 3, 6,
    ]);
    expect([...scanReference(Uint32Array.of(3, 1, 4, 1, 5), { kind: 'inclusive', op: 'max' })]).toEqual([
      3, 3, 4, 4, 5,
    ]);
    const heads = Uint32Array.of(0, 0, 1, 0);
    expect([
      ...scanReference(Uint32Array.of(1, 2, 3, 4), { kind: 'inclusive', op: 'add', segmentHeads: heads }),
    ]).toEqual([1, 3, 3, 7]);
    expect([
      ...scanReference(Uint32Array.of(1, 2, 3, 4), { kind: 'exclusive', op: 'add', segmentHeads: heads }),
    ]).toEqual([0, 1, 0, 3]);
    expect([...scanReference(Uint32Array.of(0xffff_ffff, 2), { kind: 'inclusive', op: 'add' })]).toEqual([
      0xffff_ffff, 1,
    ]);
  });
});

const strategies: ScanStrategy[] = ['decoupled-fallback', 'reduce-then-scan'];

for (const [strategy, subgroups] of strategies.flatMap((s) => [true, false].map((g) => [s, g] as const))) {
  describeGpu(
    `scan (${strategy})`,
    (gpu) => {
      const base: CreateScanOptions = { strategy };
      // Small tiles (32 invocations × 2 vec4s = 256 elements) so a few hundred elements make several
      // levels (several tiles to look back over); lavapipe also compiles them far faster than the
      // default 256 × 4 (seconds per kernel).
      const small: CreateScanOptions = { ...base, workgroupSize: 32, vectorsPerInvocation: 2 };

      it.each(kinds.flatMap((kind) => ops.map((op) => [kind, op] as const)))(
        '%s %s matches the CPU (any length)',
        async (kind, op) => {
          await fc.assert(
            // size 'max': lengths spread over [0, 1200], so most inputs span several tiles (fast-check's
            // default size keeps arrays to a few elements, one tile).
            fc.asyncProperty(fc.uint32Array({ maxLength: 1200, size: 'max' }), async (values) => {
              const c = { values, kind, op };
              expectScan(await gpuScan(gpu.ctx, c, small), c);
            }),
            { numRuns: 8 },
          );
        },
      );

      it.each(kinds.flatMap((kind) => ops.map((op) => [kind, op] as const)))(
        'segmented %s %s matches the CPU',
        async (kind, op) => {
          await fc.assert(
            fc.asyncProperty(
              fc.array(fc.tuple(u32, fc.nat({ max: 40 })), { maxLength: 1200, size: 'max' }),
              async (pairs) => {
                const values = Uint32Array.from(pairs, ([v]) => v);
                // Heads are any nonzero u32 (here 7 or 0xffffffff), about one element in 20.
                const heads = Uint32Array.from(pairs, ([, h]) => (h === 0 ? 7 : h === 1 ? 0xffff_ffff : 0));
                const c = { values, kind, op, heads };
                expectScan(await gpuScan(gpu.ctx, c, small), c);
              },
            ),
            { numRuns: 8 },
          );
        },
      );

      it('handles empty input and one element', async () => {
        for (const kind of kinds) {
          expect([
            ...(await gpuScan(gpu.ctx, { values: new Uint32Array(0), kind, op: 'add' }, base)),
          ]).toEqual([]);
          const one = { values: Uint32Array.of(42), kind, op: 'add' as const };
          expect([...(await gpuScan(gpu.ctx, one, small))]).toEqual(kind === 'exclusive' ? [0] : [42]);
          const seg = { ...one, heads: Uint32Array.of(1) };
          expect([...(await gpuScan(gpu.ctx, seg, small))]).toEqual(kind === 'exclusive' ? [0] : [42]);
        }
      });

      it('wraps add modulo 2^32 and handles all-equal values', async () => {
        const big = {
          values: new Uint32Array(5000).fill(0xffff_fff0),
          kind: 'inclusive' as const,
          op: 'add' as const,
        };
        expectScan(await gpuScan(gpu.ctx, big, small), big);
        const same = {
          values: new Uint32Array(4099).fill(7),
          kind: 'exclusive' as const,
          op: 'max' as const,
        };
        expectScan(await gpuScan(gpu.ctx, same, small), same);
        const top = {
          values: new Uint32Array(999).fill(0xffff_ffff),
          kind: 'inclusive' as const,
          op: 'max' as const,
        };
        expectScan(await gpuScan(gpu.ctx, top, small), top);
      });

      it('scans sizes around the tile boundaries with three levels', async () => {
        for (const count of [255, 256, 257, 65_535, 65_536, 65_537, 70_001]) {
          const values = Uint32Array.from({ length: count }, (_, i) => (i * 2654435761) >>> 0);
          const c = { values, kind: 'exclusive' as const, op: 'add' as const };
          expectScan(await gpuScan(gpu.ctx, c, small), c);
        }
      });

      it('scans in place', async () => {
        const values = Uint32Array.from({ length: 9001 }, (_, i) => (i * 7919) % 1000);
        for (const kind of kinds) {
          const c = { values, kind, op: 'add' as const, inPlace: true };
          expectScan(await gpuScan(gpu.ctx, c, small), c);
        }
        const heads = Uint32Array.from(values, (v) => (v % 13 === 0 ? 1 : 0));
        const seg = { values, kind: 'exclusive' as const, op: 'max' as const, heads, inPlace: true };
        expectScan(await gpuScan(gpu.ctx, seg, small), seg);
      });

      it('carries the prefix across binding windows (maxBindingBytes 4096)', async () => {
        const values = Uint32Array.from({ length: 5000 }, (_, i) => (i * 2654435761) >>> 0);
        const heads = Uint32Array.from(values, (v) => (v % 1500 === 0 ? 1 : 0));
        for (const c of [
          { values, kind: 'exclusive' as const, op: 'add' as const },
          { values, kind: 'inclusive' as const, op: 'max' as const },
          { values, kind: 'exclusive' as const, op: 'add' as const, heads },
          { values, kind: 'inclusive' as const, op: 'add' as const, inPlace: true },
        ]) {
          expectScan(await gpuScan(gpu.ctx, c, { ...small, maxBindingBytes: 4096 }), c);
        }
      });

      it('folds grids past the per-dimension workgroup limit', async () => {
        const values = Uint32Array.from({ length: 3000 }, (_, i) => i % 17);
        const c = { values, kind: 'inclusive' as const, op: 'add' as const };
        expectScan(await gpuScan(gpu.ctx, c, { ...small, maxWorkgroupsPerDimension: 7 }), c);
      });

      it('scans more than 65,535 tiles in one dispatch (tiles of 128)', async () => {
        const count = 65_536 * 128 + 5;
        const values = new Uint32Array(count);
        for (let i = 0; i < count; i++) values[i] = i & 3;
        const c = { values, kind: 'exclusive' as const, op: 'add' as const };
        expectScan(await gpuScan(gpu.ctx, c, { ...base, workgroupSize: 32, vectorsPerInvocation: 1 }), c);
      });

      it('scans with the default tiles (256 × 16 elements), as benchmarked', async () => {
        const values = Uint32Array.from({ length: 3 * 4096 + 77 }, (_, i) => (i * 2654435761) >>> 0);
        const c = { values, kind: 'exclusive' as const, op: 'add' as const };
        expectScan(await gpuScan(gpu.ctx, c, base), c);
      });

      if (strategy === 'decoupled-fallback') {
        // Tiles of 32 elements (8 invocations × 1 vec4): many tiles per input, so many look-backs.
        const tiny: CreateScanOptions = { ...base, workgroupSize: 8, vectorsPerInvocation: 1 };
        const always: CreateScanOptions = { ...tiny, fallbackAlways: true };
        const cases = kinds.flatMap((kind) =>
          ops.flatMap((op) => [false, true].map((seg) => [kind, op, seg] as const)),
        );

        it.each(cases)(
          'fallback only (published states ignored): %s %s, segmented %s',
          async (kind, op, seg) => {
            await fc.assert(
              fc.asyncProperty(
                fc.array(fc.tuple(u32, fc.nat({ max: 60 })), { maxLength: 1000, size: 'max' }),
                async (pairs) => {
                  const values = Uint32Array.from(pairs, ([v]) => v);
                  const heads = seg ? Uint32Array.from(pairs, ([, h]) => (h === 0 ? 1 : 0)) : undefined;
                  const c = { values, kind, op, ...(heads ? { heads } : {}) };
                  expectScan(await gpuScan(gpu.ctx, c, always), c);
                },
              ),
              { numRuns: 5 },
            );
          },
        );

        it('fallback only: across binding windows and folded grids', async () => {
          const values = Uint32Array.from({ length: 3000 }, (_, i) => (i * 2654435761) >>> 0);
          const heads = Uint32Array.from(values, (v) => (v % 97 === 0 ? 1 : 0));
          for (const c of [
            { values, kind: 'exclusive' as const, op: 'add' as const },
            { values, kind: 'inclusive' as const, op: 'max' as const, heads },
          ]) {
            const options = { ...always, maxBindingBytes: 1024, maxWorkgroupsPerDimension: 3 };
            expectScan(await gpuScan(gpu.ctx, c, options), c);
          }
        });

        it('pollLimit 0: a predecessor still in flight is reduced at once (32,768 tiles)', async () => {
          // lavapipe runs a dispatch's workgroups on several threads; with 2^20 elements (32,768 tiles
          // on a folded grid) tiles meet predecessors still in flight.
          const values = Uint32Array.from({ length: 1 << 20 }, (_, i) => ((i * 2654435761) >>> 0) % 1000);
          const heads = Uint32Array.from(values, (v) => (v === 7 ? 1 : 0));
          for (const c of [
            { values, kind: 'exclusive' as const, op: 'add' as const },
            { values, kind: 'inclusive' as const, op: 'max' as const },
            { values, kind: 'exclusive' as const, op: 'add' as const, heads },
          ]) {
            expectScan(
              await gpuScan(gpu.ctx, c, { ...tiny, pollLimit: 0, maxWorkgroupsPerDimension: 4096 }),
              c,
            );
          }
        });

        it('counter tile ids (tiles taken in order from an atomic counter)', async () => {
          const values = Uint32Array.from({ length: 3000 }, (_, i) => (i * 2654435761) >>> 0);
          const heads = Uint32Array.from(values, (v) => (v % 89 === 0 ? 1 : 0));
          for (const c of [
            { values, kind: 'exclusive' as const, op: 'add' as const },
            { values, kind: 'inclusive' as const, op: 'max' as const, heads },
          ]) {
            const options = { ...tiny, tileIds: 'counter' as const, maxBindingBytes: 4096 };
            expectScan(await gpuScan(gpu.ctx, c, options), c);
          }
        });

        it("a per-call strategy overrides the scan's", async () => {
          const values = Uint32Array.from({ length: 2000 }, (_, i) => i * 3);
          const c = { values, kind: 'inclusive' as const, op: 'add' as const };
          const scan = createScan(gpu.ctx, { ...small, strategy: 'reduce-then-scan' });
          const input = await upload(gpu.ctx, 'scan input', values);
          const output = await upload(gpu.ctx, 'scan output', new Uint32Array(values.length));
          try {
            await scan.run({ input, output, count: values.length, kind: c.kind, op: c.op, strategy });
            expectScan(new Uint32Array(await gpu.ctx.readBuffer(output)), c);
            // encode without preparing that strategy's kernel fails with a clear message
            const other = createScan(gpu.ctx, { ...small, strategy: 'reduce-then-scan' });
            await other.prepare({ count: values.length, op: 'add', kind: 'inclusive', segmented: false });
            const encoder = gpu.ctx.device.createCommandEncoder();
            expect(() =>
              other.encode(encoder, {
                input,
                output,
                count: values.length,
                kind: c.kind,
                op: c.op,
                strategy,
              }),
            ).toThrow(/not prepared/);
            other.destroy();
          } finally {
            scan.destroy();
            input.destroy();
            output.destroy();
          }
        });
      }
    },
    { subgroups },
  );
}
