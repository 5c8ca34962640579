import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { GpuContext } from '../src/context/context';
import { CorruptListError, createElementPool, type ElementPool, INVALID_ELEMENT } from '../src/index';
import { describeGpu } from '../src/testing/index';
import { BufferUsage } from '../src/webgpu-constants';

const WORDS = 4;
const NEXT = 1;

/** Lists as the host sees them: for each head, the data words of its elements in list order. */
function walk(elements: Uint32Array, heads: readonly number[]): number[][][] {
  return heads.map((head) => {
    const list: number[][] = [];
    for (let e = head; e !== INVALID_ELEMENT; e = elements[e * WORDS + NEXT] as number) {
      if (list.length * WORDS >= elements.length) throw new Error(`the list of head ${head} loops`);
      list.push([...elements.subarray(e * WORDS, (e + 1) * WORDS)].filter((_, w) => w !== NEXT));
    }
    return list;
  });
}

interface Layout {
  readonly capacity: number;
  readonly used: number;
  readonly elements: Uint32Array;
  readonly heads: number[];
}

/** Lists of the given lengths at shuffled positions among `garbage` unreachable elements. */
const layoutArb = fc
  .record({
    lengths: fc.array(fc.nat(6), { maxLength: 40 }),
    garbage: fc.nat(120),
    spare: fc.nat(20),
    sharing: fc.array(fc.nat(), { maxLength: 4 }),
    seed: fc.integer(),
  })
  .chain(({ lengths, garbage, spare, sharing, seed }) => {
    const listElements = lengths.reduce((s, l) => s + l, 0);
    const used = listElements + garbage;
    return fc
      .shuffledSubarray(
        Array.from({ length: used }, (_, k) => k),
        { minLength: used, maxLength: used },
      )
      .map((order): Layout => {
        const capacity = used + spare + 1;
        const elements = new Uint32Array(capacity * WORDS);
        let value = seed >>> 0;
        for (let k = 0; k < elements.length; k++) {
          value = (Math.imul(value, 1_103_515_245) + 12_345) >>> 0;
          elements[k] = value;
        }
        let at = 0;
        const heads = lengths.map((length) => {
          const members = order.slice(at, at + length);
          at += length;
          members.forEach((e, k) => {
            elements[e * WORDS + NEXT] = k + 1 < length ? (members[k + 1] as number) : INVALID_ELEMENT;
          });
          return length === 0 ? INVALID_ELEMENT : (members[0] as number);
        });
        // A few heads share another head's list.
        for (const s of sharing) if (heads.length > 0) heads.push(heads[s % heads.length] as number);
        return { capacity, used, elements, heads };
      });
  });

async function poolWith(ctx: GpuContext, layout: Layout): Promise<ElementPool> {
  const pool = await createElementPool(ctx, {
    name: 'lists',
    elementWords: WORDS,
    capacity: layout.capacity,
    // Several binding windows, so that the copy crosses them.
    windowElements: 64,
  });
  await pool.writeElements(0, layout.elements);
  await ctx.writeBuffer(pool.header, 0, Uint32Array.of(layout.used, layout.capacity, 0, 0));
  return pool;
}

/** Heads split over two buffers, the second range from an unaligned first index. */
async function headBuffers(ctx: GpuContext, heads: readonly number[]) {
  const alignment = 4 * 67;
  const half = heads.length >> 1;
  const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
  const first = await ctx.createBuffer({ label: 'heads a', size: Math.max(4, half * 4), usage });
  const second = await ctx.createBuffer({
    label: 'heads b',
    size: alignment + Math.max(4, (heads.length - half) * 4),
    usage,
  });
  if (half > 0) await ctx.writeBuffer(first, 0, Uint32Array.from(heads.slice(0, half)));
  if (heads.length > half) await ctx.writeBuffer(second, alignment, Uint32Array.from(heads.slice(half)));
  const read = async () => [
    ...(half > 0 ? new Uint32Array(await ctx.readBuffer(first, 0, half * 4)) : []),
    ...(heads.length > half
      ? new Uint32Array(await ctx.readBuffer(second, alignment, (heads.length - half) * 4))
      : []),
  ];
  return {
    ranges: [
      { buffer: first, count: half },
      { buffer: second, first: alignment / 4, count: heads.length - half },
    ],
    read,
    destroy: () => {
      first.destroy();
      second.destroy();
    },
  };
}

describeGpu('element pool compaction', (gpu) => {
  it('keeps every list reachable from the heads, in order, at the start of the pool', async () => {
    await fc.assert(
      fc.asyncProperty(layoutArb, async (layout) => {
        const pool = await poolWith(gpu.ctx, layout);
        const heads = await headBuffers(gpu.ctx, layout.heads);
        try {
          const expected = walk(layout.elements, layout.heads);
          const reachable = expected.reduce((s, list) => s + list.length, 0);
          const result = await pool.compact({ nextWord: NEXT, heads: heads.ranges });
          expect(result.before).toBe(layout.used);
          const after = await heads.read();
          const elements = await pool.readElements();
          expect(walk(elements, after)).toEqual(expected);
          const header = await pool.readHeader();
          const half = layout.heads.length >> 1;
          const lengthOf = (lists: number[][][]) => lists.reduce((sum, list) => sum + list.length, 0);
          expect(result.kept).toEqual([lengthOf(expected.slice(0, half)), lengthOf(expected.slice(half))]);
          if (reachable < layout.used) {
            expect(result.after).toBe(reachable);
            expect(header).toEqual({
              next: reachable,
              capacity: layout.capacity,
              exhausted: false,
              reserved: 0,
            });
            // Each head owns one contiguous run below the new bump pointer.
            const owner = new Int32Array(reachable).fill(-1);
            after.forEach((head, h) => {
              let k = 0;
              for (let e = head; e !== INVALID_ELEMENT; e = elements[e * WORDS + NEXT] as number) {
                expect(e).toBe(head + k++);
                expect(e).toBeLessThan(reachable);
                expect(owner[e]).toBe(-1);
                owner[e] = h;
              }
            });
          } else {
            // Nothing to drop (or shared lists the copy would duplicate): the pool is as it was.
            expect(result.after).toBe(layout.used);
            expect(after).toEqual(layout.heads);
            expect(header.next).toBe(layout.used);
          }
        } finally {
          heads.destroy();
          pool.destroy();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('refuses a list that loops instead of copying forever', async () => {
    const elements = new Uint32Array(8 * WORDS);
    elements[0 * WORDS + NEXT] = 3;
    elements[3 * WORDS + NEXT] = 5;
    elements[5 * WORDS + NEXT] = 0;
    const pool = await poolWith(gpu.ctx, { capacity: 8, used: 8, elements, heads: [0] });
    const heads = await headBuffers(gpu.ctx, [INVALID_ELEMENT, 0]);
    try {
      await expect(pool.compact({ nextWord: NEXT, heads: heads.ranges })).rejects.toThrow(CorruptListError);
    } finally {
      heads.destroy();
      pool.destroy();
    }
  });

  it('emits a compact event with the elements in use before and after', async () => {
    const elements = new Uint32Array(16 * WORDS).fill(7);
    elements[9 * WORDS + NEXT] = 2;
    elements[2 * WORDS + NEXT] = INVALID_ELEMENT;
    const pool = await poolWith(gpu.ctx, { capacity: 16, used: 12, elements, heads: [9] });
    const heads = await headBuffers(gpu.ctx, [9]);
    const events: unknown[] = [];
    pool.on('compact', (event) => events.push(event));
    try {
      await pool.compact({ nextWord: NEXT, heads: heads.ranges });
      expect(events).toEqual([{ pool: 'lists', from: 12, to: 2 }]);
      expect(await heads.read()).toEqual([0]);
    } finally {
      heads.destroy();
      pool.destroy();
    }
  });
});
