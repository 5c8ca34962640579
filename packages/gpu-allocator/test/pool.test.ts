import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GpuContext } from '../src/context/context';
import {
  createElementPool,
  defineBindings,
  type ElementPool,
  gridWgsl,
  growthLadder,
  INVALID_ELEMENT,
  linkWgsl,
  PoolCapacityError,
  runAllocationProbe,
} from '../src/index';
import { assertGpuBatchProperty, describeGpu } from '../src/testing/index';

/** Checks the probe's output against what any order of serving the teams must give. */
function expectExactAllocation(out: Uint32Array, requests: Uint32Array, rounds: number, start: number) {
  const valid: number[] = [];
  requests.forEach((asked, i) => {
    for (let r = 0; r < rounds; r++) {
      const element = out[i * rounds + r] as number;
      if (r < asked) {
        expect(element).not.toBe(INVALID_ELEMENT);
        valid.push(element);
      } else {
        expect(element).toBe(INVALID_ELEMENT);
      }
    }
  });
  valid.sort((a, b) => a - b);
  // Distinct and gap-free: exactly start, start + 1, …, start + total − 1.
  expect(valid).toEqual(valid.map((_, k) => start + k));
  return valid.length;
}

const requestsArb = (maxInvocations: number, rounds: number) =>
  fc
    .array(fc.integer({ min: 0, max: rounds }), { minLength: 0, maxLength: maxInvocations })
    .map((values) => Uint32Array.from(values));

for (const subgroups of [true, false]) {
  describeGpu(
    'element pool allocation',
    (gpu) => {
      const modes = subgroups
        ? (['subgroup', 'workgroup', 'single'] as const)
        : (['workgroup', 'single'] as const);
      it.each(modes)(
        'gives every request of many concurrent teams a distinct element and an exact counter (%s)',
        async (mode) => {
          const rounds = 3;
          await assertGpuBatchProperty(
            requestsArb(700, rounds),
            async (cases) => {
              // All cases of a batch share one pool and one dispatch; each case is a run of invocations.
              const requests = Uint32Array.from(cases.flatMap((c) => [...c]));
              const total = requests.reduce((s, r) => s + r, 0);
              const reserved = cases.length % 5;
              const pool = await createElementPool(gpu.ctx, {
                name: 'p',
                capacity: total + reserved + 3,
                reserved,
              });
              const out = await runAllocationProbe(gpu.ctx, pool, requests, { mode, rounds });
              expect(expectExactAllocation(out, requests, rounds, reserved)).toBe(total);
              expect(await pool.readHeader()).toEqual({
                next: reserved + total,
                capacity: total + reserved + 3,
                exhausted: false,
                reserved,
              });
              // Each element was written by the invocation that received it.
              const words = await pool.readElements();
              requests.forEach((_, i) => {
                for (let r = 0; r < rounds; r++) {
                  const element = out[i * rounds + r] as number;
                  if (element !== INVALID_ELEMENT) expect(words[element * pool.elementWords]).toBe(i);
                }
              });
              pool.destroy();
              let offset = 0;
              return cases.map((c) => {
                const slice = out.subarray(offset * rounds, (offset + c.length) * rounds);
                offset += c.length;
                return slice;
              });
            },
            (c, slice) => slice.length === c.length * rounds,
            { batchSize: 6, numRuns: 12 },
          );
        },
      );

      it.each(modes)(
        'detects exhaustion on the device and hands out exactly the remaining elements (%s)',
        async (mode) => {
          await fc.assert(
            fc.asyncProperty(requestsArb(500, 2), fc.nat(40), async (requests, capacity) => {
              const total = requests.reduce((s, r) => s + r, 0);
              fc.pre(total > capacity + 1);
              const pool = await createElementPool(gpu.ctx, {
                name: 'p',
                capacity: capacity + 1,
                reserved: 1,
              });
              const out = await runAllocationProbe(gpu.ctx, pool, requests, { mode, rounds: 2 });
              const valid = [...out].filter((e) => e !== INVALID_ELEMENT).sort((a, b) => a - b);
              expect(valid).toEqual(Array.from({ length: capacity }, (_, k) => k + 1));
              const header = await pool.readHeader();
              expect(header.exhausted).toBe(true);
              // The counter ran past the end by the whole demand, which tells the host how far to grow.
              expect(header.next).toBe(1 + total);
              pool.destroy();
            }),
            { numRuns: 10 },
          );
        },
      );
    },
    { subgroups },
  );
}

/**
 * An idempotent step: invocation i, if it has no element yet, allocates one and fills it with
 * i·1000 + word. Re-running after a grow only serves the invocations the last run could not.
 */
async function fillStep(ctx: GpuContext, pool: ElementPool, slots: GPUBuffer, count: number) {
  const layout = defineBindings('fill step', {
    ...pool.bindingSpecs(),
    slots: { kind: 'storage', type: 'array<u32>' },
  });
  const code = linkWgsl(
    `${layout.wgsl()}
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = gm_workgroup_index(wid, nwg) * 64u + lid;
  var need = false;
  if (i < ${count}u) { need = slots[i] == GM_INVALID_ELEMENT; }
  let element = p_alloc(need, lid);
  if (element != GM_INVALID_ELEMENT) {
    for (var w = 0u; w < p_ELEMENT_WORDS; w++) { p_store(element, w, i * 1000u + w); }
    slots[i] = element;
  }
}`,
    [gridWgsl, pool.allocWgsl(), pool.accessWgsl()],
  );
  const kernel = await ctx.kernels.get({ label: 'fill step', code, layout });
  await ctx.guard('fill step', () => {
    const encoder = ctx.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(kernel.pipeline);
    pass.setBindGroup(0, kernel.bindGroup({ ...pool.resources(), slots }));
    pass.dispatchWorkgroups(Math.ceil(count / 64));
    pass.end();
    ctx.queue.submit([encoder.finish()]);
  });
}

async function expectFilled(ctx: GpuContext, pool: ElementPool, slots: GPUBuffer, count: number) {
  const elements = new Uint32Array(await ctx.readBuffer(slots, 0, count * 4));
  expect(new Set(elements).size).toBe(count);
  const words = await pool.readElements();
  elements.forEach((element, i) => {
    expect(element).toBeLessThan(pool.capacity);
    for (let w = 0; w < pool.elementWords; w++)
      expect(words[element * pool.elementWords + w]).toBe(i * 1000 + w);
  });
}

for (const subgroups of [true, false]) {
  describeGpu(
    'element pool growth',
    (gpu) => {
      async function slotsFor(count: number) {
        const buffer = await gpu.ctx.createBuffer({
          label: 'slots',
          size: count * 4,
          usage: GPUBufferUsageAll,
        });
        await gpu.ctx.writeBuffer(buffer, 0, new Uint32Array(count).fill(INVALID_ELEMENT));
        return buffer;
      }

      it.each([
        { name: 'one window', windowElements: undefined, count: 300, capacity: 7 },
        // 8-element windows (256 bytes, the offset alignment): the pool spans up to 8 bindings of one buffer.
        { name: 'many windows', windowElements: 8, count: 61, capacity: 2 },
      ])('grows mid-step, keeps every element, and the re-run completes ($name)', async (c) => {
        const ctx = gpu.ctx;
        const pool = await createElementPool(ctx, {
          name: 'p',
          capacity: c.capacity,
          elementWords: 8,
          ...(c.windowElements ? { windowElements: c.windowElements } : {}),
        });
        const grows: Array<{ from: number; to: number }> = [];
        pool.on('grow', (e) => grows.push(e));
        const slots = await slotsFor(c.count);
        const result = await pool.runGrowing(() => fillStep(ctx, pool, slots, c.count));
        expect(result.attempts).toBeGreaterThan(1);
        expect(result.allocated).toBe(c.count);
        expect(grows.length).toBe(result.attempts - 1);
        expect(grows[0]?.from).toBe(c.capacity);
        if (c.windowElements) expect(pool.geometry.windows).toBeGreaterThan(1);
        await expectFilled(ctx, pool, slots, c.count);
        slots.destroy();
        pool.destroy();
      });

      it('keeps contents and the bump pointer across an explicit grow', async () => {
        const ctx = gpu.ctx;
        const pool = await createElementPool(ctx, { name: 'p', capacity: 6, elementWords: 4, reserved: 2 });
        const words = Uint32Array.from({ length: 24 }, (_, k) => k * 7 + 1);
        await pool.writeElements(0, words);
        await runAllocationProbe(ctx, pool, new Uint32Array([1, 1, 0]), { rounds: 1 });
        expect(await pool.grow(10)).toBe(12);
        expect(pool.generation).toBe(1);
        const back = await pool.readElements();
        expect(back.length).toBe(48);
        // Elements 2 and 3 were overwritten by the probe (word 0 = invocation index).
        for (const k of [0, 1, 4, 5])
          expect([...back.subarray(k * 4, k * 4 + 4)]).toEqual([...words.subarray(k * 4, k * 4 + 4)]);
        expect([...back.subarray(24)]).toEqual(new Array(24).fill(0));
        expect(await pool.readHeader()).toEqual({ next: 4, capacity: 12, exhausted: false, reserved: 2 });
        pool.destroy();
      });

      it('with reuseBuffers, starts and grows in kept buffers, keeps contents, and gives them back', async () => {
        const ctx = gpu.ctx;
        ctx.retained.trim();
        // A kept buffer of 8 elements (of 4 words) with leftover words, and one of 16.
        const usage = GPUBufferUsageAll;
        const leftover8 = await ctx.createBuffer({ label: 'leftover 8', size: 8 * 16, usage });
        await ctx.writeBuffer(leftover8, 0, new Uint32Array(32).fill(0xdead_beef));
        const leftover16 = await ctx.createBuffer({ label: 'leftover 16', size: 16 * 16, usage });
        ctx.releaseBuffer(leftover8);
        ctx.releaseBuffer(leftover16);
        // Asking for 5 elements takes the 8-element buffer (within twice the request); the
        // capacity stays 5, so that growth asks for the sizes a fresh pool would.
        const pool = await createElementPool(ctx, {
          name: 'p',
          capacity: 5,
          elementWords: 4,
          reuseBuffers: true,
        });
        expect(pool.buffer).toBe(leftover8);
        expect(pool.capacity).toBe(5);
        expect(await pool.readHeader()).toMatchObject({ capacity: 5 });
        expect([...(await pool.readElements()).subarray(0, 4)]).toEqual(new Array(4).fill(0xdead_beef));
        const words = Uint32Array.from({ length: 20 }, (_, k) => k + 1);
        await pool.writeElements(0, words);
        // Growing to 10 takes the 16-element buffer, copies the 5 elements over and keeps the old buffer.
        expect(await pool.grow(9)).toBe(10);
        expect(pool.buffer).toBe(leftover16);
        expect(ctx.retained.buffers).toEqual([leftover8]);
        expect([...(await pool.readElements()).subarray(0, 20)]).toEqual([...words]);
        pool.destroy();
        expect(ctx.retained.buffers).toEqual([leftover8, leftover16]);
        // Without reuseBuffers a pool makes its own zeroed buffer and leaves the kept ones alone.
        const fresh = await createElementPool(ctx, { name: 'q', capacity: 8, elementWords: 4 });
        expect([...(await fresh.readElements())]).toEqual(new Array(32).fill(0));
        fresh.destroy();
        expect(ctx.retained.count).toBe(2);
        ctx.retained.trim();
      });

      it('grows to ladder sizes, so a second pool growing to a slightly larger demand finds the kept buffer', async () => {
        const ctx = gpu.ctx;
        ctx.retained.trim();
        const first = await createElementPool(ctx, {
          name: 'p',
          capacity: 16,
          elementWords: 4,
          reuseBuffers: true,
        });
        // Demands of 41 and 43 elements both grow to 48 (6 · 8).
        expect(await first.grow(41)).toBe(48);
        const grown = first.buffer;
        first.destroy();
        const second = await createElementPool(ctx, {
          name: 'p',
          capacity: 16,
          elementWords: 4,
          reuseBuffers: true,
        });
        expect(await second.grow(43)).toBe(48);
        expect(second.buffer).toBe(grown);
        second.destroy();
        ctx.retained.trim();
      });

      it('stops at maxCapacity with a PoolCapacityError', async () => {
        const ctx = gpu.ctx;
        const pool = await createElementPool(ctx, {
          name: 'p',
          capacity: 2,
          maxCapacity: 8,
          elementWords: 4,
        });
        const slots = await slotsFor(20);
        const error = await pool.runGrowing(() => fillStep(ctx, pool, slots, 20)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PoolCapacityError);
        expect(error).toMatchObject({ pool: 'p', requestedElements: 20, maxElements: 8 });
        // The pool is left as it was, still usable.
        expect(pool.capacity).toBe(2);
        expect(await pool.readHeader()).toMatchObject({ capacity: 2, exhausted: true });
        slots.destroy();
        pool.destroy();
      });

      it('rejects pool names that are not WGSL identifiers and window sizes off the alignment', async () => {
        await expect(createElementPool(gpu.ctx, { name: 'bad-name', capacity: 1 })).rejects.toThrow(
          TypeError,
        );
        await expect(
          createElementPool(gpu.ctx, { name: 'p', capacity: 4, elementWords: 4, windowElements: 3 }),
        ).rejects.toThrow(/multiple of/);
      });
    },
    { subgroups },
  );
}

const GPUBufferUsageAll = 0x80 | 0x04 | 0x08;

describe('growthLadder', () => {
  it('rounds up to four sizes per doubling, at most a quarter more than asked', () => {
    expect([1, 8, 9, 11, 13, 15, 16, 17].map(growthLadder)).toEqual([1, 8, 10, 12, 14, 16, 16, 20]);
    expect(growthLadder(4_505_842)).toBe(5 * 2 ** 20);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 32 - 1 }),
        fc.integer({ min: 1, max: 2 ** 32 - 1 }),
        (a, b) => {
          const size = growthLadder(a);
          expect(size).toBeGreaterThanOrEqual(a);
          expect(size).toBeLessThanOrEqual(Math.max(8, a * 1.25));
          // A ladder size is its own rung, and the ladder keeps the order of the demands.
          expect(growthLadder(size)).toBe(size);
          if (a <= b) expect(growthLadder(a)).toBeLessThanOrEqual(growthLadder(b));
          if (size > 8) expect(size / 2 ** (Math.floor(Math.log2(size)) - 2)).toBeOneOf([4, 5, 6, 7, 8]);
        },
      ),
    );
  });
});

describe('pool WGSL', () => {
  it('is generated per team mode', async () => {
    const { poolAllocWgsl } = await import('../src/index');
    const sub = poolAllocWgsl({ name: 'q' }, 'subgroup', true);
    const hierarchical = poolAllocWgsl({ name: 'q' }, 'workgroup', true);
    const wg = poolAllocWgsl({ name: 'q' }, 'workgroup', false);
    expect(sub.enables).toContain('subgroups');
    expect(sub.code).toContain('subgroupExclusiveAdd');
    expect(hierarchical.code).toContain('subgroupExclusiveAdd');
    expect(hierarchical.code).toContain('workgroupUniformLoad');
    expect(wg.enables ?? []).not.toContain('subgroups');
    expect(wg.code).toContain('workgroupUniformLoad');
    expect(() => poolAllocWgsl({ name: 'q' }, 'subgroup', false)).toThrow(/subgroups/);
  });
});
