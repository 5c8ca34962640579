import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { mergeDawnFlags } from '../src/context/acquire';
import {
  acquireGpu,
  BufferUsage,
  createGpuArray,
  createPageToucher,
  defineBindings,
  GpuDeviceLostError,
  GpuLimitError,
  GpuUnavailableError,
  GpuValidationError,
  type MappedRead,
  type StagedRead,
  StagingPool,
  UploadPool,
  wrapDevice,
} from '../src/index';
import { describeGpu } from '../src/testing/index';

describe('mergeDawnFlags', () => {
  it('joins the toggle lists of one name into one flag, in order and without repeats', () => {
    expect(
      mergeDawnFlags([
        'disable-dawn-features=timestamp_quantization',
        'enable-dawn-features=disable_robustness',
        'backend=vulkan',
        'enable-dawn-features=skip_validation,disable_robustness',
        'disable-dawn-features=lazy_clear_resource_on_first_use',
      ]),
    ).toEqual([
      'disable-dawn-features=timestamp_quantization,lazy_clear_resource_on_first_use',
      'enable-dawn-features=disable_robustness,skip_validation',
      'backend=vulkan',
    ]);
  });

  it('leaves flags of other names as they are', () => {
    expect(mergeDawnFlags(['dlldir=/x', 'verbose'])).toEqual(['dlldir=/x', 'verbose']);
  });
});

describeGpu('acquireGpu', (gpu) => {
  it('reports the adapter, its subgroup sizes and the limits it granted', () => {
    const { adapter, limits, features } = gpu.ctx;
    expect(adapter.description || adapter.device).not.toBe('');
    expect(adapter.backend).toBe('node-dawn');
    expect(adapter.subgroupMinSize).toBeGreaterThan(0);
    expect(adapter.subgroupMaxSize).toBeGreaterThanOrEqual(adapter.subgroupMinSize);
    // The device was asked for the adapter's largest limits, not WebGPU's defaults (128 MiB / 16 KiB).
    expect(limits.maxBufferSize).toBeGreaterThan(256 * 2 ** 20);
    expect(limits.maxComputeWorkgroupStorageSize).toBeGreaterThan(16 * 1024);
    expect(features.subgroups).toBe(adapter.features.includes('subgroups'));
    expect(String(gpu.ctx)).toContain(adapter.software ? 'software' : 'hardware');
  });

  it('creates its Node device without shader robustness unless asked for it', async () => {
    expect(gpu.ctx.adapter.robustness).toBe(false);
    const robust = await acquireGpu({ require: true, robustness: true });
    try {
      expect(robust?.adapter.robustness).toBe(true);
    } finally {
      robust?.destroy();
    }
  });

  it('keeps released buffers for reuse within its limit, smallest fit first, and frees them on trim', async () => {
    const ctx = await acquireGpu({ require: true, retainBytes: 4096 });
    if (!ctx) throw new Error('unreachable: require');
    try {
      const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
      const small = await ctx.createBuffer({ label: 'small', size: 1024, usage });
      const large = await ctx.createBuffer({ label: 'large', size: 2048, usage });
      await ctx.writeBuffer(small, 0, new Uint32Array(256).fill(7));
      ctx.releaseBuffer(large);
      ctx.releaseBuffer(small);
      expect(ctx.retained.bytes).toBe(3072);
      // 1,000 bytes: the 1,024-byte buffer fits best, with what it held; its new label.
      const first = await ctx.reuseBuffer({ label: 'again', size: 1000, usage });
      expect(first).toEqual({ buffer: small, reused: true });
      expect(small.label).toBe('again');
      expect(new Uint32Array(await ctx.readBuffer(small, 0, 16))).toEqual(new Uint32Array(4).fill(7));
      // Another usage, or a size past maxSize, makes a new (zeroed) buffer.
      const otherUsage = await ctx.reuseBuffer({ label: 'u', size: 1000, usage: BufferUsage.STORAGE });
      expect(otherUsage.reused).toBe(false);
      const tooSmall = await ctx.reuseBuffer({ label: 't', size: 256, usage });
      expect(tooSmall.reused).toBe(false);
      expect(new Uint32Array(await ctx.readBuffer(tooSmall.buffer))).toEqual(new Uint32Array(64));
      // Past the limit, the oldest kept buffers make room.
      ctx.releaseBuffer(small);
      ctx.releaseBuffer(tooSmall.buffer);
      ctx.releaseBuffer(otherUsage.buffer);
      expect(ctx.retained.buffers).toEqual([small, tooSmall.buffer, otherUsage.buffer]);
      expect(ctx.retained.bytes).toBe(1024 + 256 + 1000);
      // A buffer larger than the limit is destroyed at once.
      const huge = await ctx.createBuffer({ label: 'huge', size: 8192, usage });
      expect(ctx.retained.keep(huge)).toBe(false);
      expect(ctx.retained.trim()).toBe(2280);
      expect(ctx.retained.count).toBe(0);
    } finally {
      ctx.destroy();
    }
  });

  it('turns bad WGSL into a GpuValidationError carrying the compiler message and position', async () => {
    const layout = defineBindings('bad', { out: { kind: 'storage', type: 'array<u32>' } });
    const error = await gpu.ctx.kernels
      .get({
        label: 'deliberately broken',
        code: `${layout.wgsl()}\n@compute @workgroup_size(1) fn main( {`,
        layout,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GpuValidationError);
    const validation = error as GpuValidationError;
    expect(validation.label).toBe('deliberately broken');
    expect(validation.message).toContain('deliberately broken');
    expect(validation.compilerMessages.length).toBeGreaterThan(0);
    expect(validation.compilerMessages[0]).toMatchObject({ type: 'error', line: 2 });
    expect(gpu.ctx.uncapturedErrors).toHaveLength(0);
  });

  it('reports a pipeline that does not match its layout as a GpuValidationError', async () => {
    const layout = defineBindings('mismatch', {
      out: { kind: 'storage', type: 'array<u32>', access: 'read' },
    });
    // The shader writes a binding the layout declares read-only.
    const code = `@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() { out[0] = 1u; }`;
    await expect(gpu.ctx.kernels.get({ label: 'mismatch', code, layout })).rejects.toBeInstanceOf(
      GpuValidationError,
    );
  });

  it('caches pipelines by source and constants', async () => {
    const layout = defineBindings('cached', { out: { kind: 'storage', type: 'array<u32>' } });
    const code = `${layout.wgsl()}\noverride K: u32 = 1u;\n@compute @workgroup_size(1) fn main() { out[0] = K; }`;
    const a = await gpu.ctx.kernels.get({ label: 'cached', code, layout, constants: { K: 2 } });
    const b = await gpu.ctx.kernels.get({ label: 'cached', code, layout, constants: { K: 2 } });
    const c = await gpu.ctx.kernels.get({ label: 'cached', code, layout, constants: { K: 3 } });
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it('finds a pipeline by equal source text in another string, per entry point, layout bindings and source', async () => {
    const layout = defineBindings('by source', { out: { kind: 'storage', type: 'array<u32>' } });
    // Layouts are keyed by their bindings: this one has a binding more (which the code leaves unused).
    const other = defineBindings('by source 2', {
      out: { kind: 'storage', type: 'array<u32>' },
      spare: { kind: 'storage', type: 'array<u32>' },
    });
    const code = `${layout.wgsl()}
@compute @workgroup_size(1) fn one() { out[0] = 1u; }
@compute @workgroup_size(1) fn two() { out[0] = 2u; }`;
    // The same text built anew (as a solver's linked module is for every solve).
    const again = code.split('\n').join('\n');
    const before = gpu.ctx.kernels.size;
    const one = await gpu.ctx.kernels.get({ label: 'one', code, layout, entryPoint: 'one' });
    expect(await gpu.ctx.kernels.get({ label: 'one', code: again, layout, entryPoint: 'one' })).toBe(one);
    const two = await gpu.ctx.kernels.get({ label: 'two', code: again, layout, entryPoint: 'two' });
    expect(two).not.toBe(one);
    const otherLayout = await gpu.ctx.kernels.get({ label: 'one', code, layout: other, entryPoint: 'one' });
    expect(otherLayout).not.toBe(one);
    const changed = await gpu.ctx.kernels.get({
      label: 'one',
      code: `${code}\n// changed`,
      layout,
      entryPoint: 'one',
    });
    expect(changed).not.toBe(one);
    expect(gpu.ctx.kernels.size).toBe(before + 4);
    // A failed build is not kept: asking again builds again (and fails again).
    const broken = `${layout.wgsl()}\n@compute @workgroup_size(1) fn main() { out[0] = nope; }`;
    await expect(gpu.ctx.kernels.get({ label: 'broken', code: broken, layout })).rejects.toBeInstanceOf(
      GpuValidationError,
    );
    expect(gpu.ctx.kernels.size).toBe(before + 4);
    await expect(gpu.ctx.kernels.get({ label: 'broken', code: broken, layout })).rejects.toBeInstanceOf(
      GpuValidationError,
    );
  });

  it('records errors raised outside its scopes, for the fixture to fail the test', async () => {
    const ctx = gpu.ctx;
    const buffer = await ctx.createBuffer({ label: 'tiny', size: 4, usage: BufferUsage.STORAGE });
    ctx.device.createBindGroup({
      label: 'wrong',
      layout: ctx.device.createBindGroupLayout({ entries: [] }),
      entries: [{ binding: 0, resource: { buffer } }],
    });
    await ctx.idle();
    await expect.poll(() => ctx.uncapturedErrors.length).toBeGreaterThan(0);
    expect(ctx.uncapturedErrors[0]).toBeInstanceOf(GpuValidationError);
    ctx.clearUncapturedErrors();
    buffer.destroy();
  });

  it('refuses a buffer beyond maxBufferSize with a GpuLimitError', async () => {
    const size = gpu.ctx.limits.maxBufferSize + 4;
    await expect(
      gpu.ctx.createBuffer({ label: 'huge', size, usage: BufferUsage.STORAGE }),
    ).rejects.toBeInstanceOf(GpuLimitError);
  });
});

describeGpu('typed arrays and readback', (gpu) => {
  it('round-trips u32, i32 and f32 data at any offset', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('u32', 'i32', 'f32'),
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 300 }),
        fc.nat(50),
        async (type, values, pad) => {
          const array = await createGpuArray(gpu.ctx, {
            label: 'roundtrip',
            type,
            length: values.length + pad,
          });
          await array.write(values, pad);
          const back = await array.read(pad);
          const expected =
            type === 'u32'
              ? Uint32Array.from(values)
              : type === 'i32'
                ? Int32Array.from(values)
                : Float32Array.from(values);
          expect(back).toEqual(expected);
          expect(await array.read(0, pad)).toEqual(new (expected.constructor as Uint32ArrayConstructor)(pad));
          array.destroy();
        },
      ),
      { numRuns: 25 },
    );
  });

  it('reuses staging buffers across readbacks', async () => {
    const array = await createGpuArray(gpu.ctx, { label: 'reuse', type: 'u32', data: [1, 2, 3, 4] });
    await array.read();
    const created = gpu.ctx.staging.created;
    for (let i = 0; i < 20; i++) expect(await array.read()).toEqual(new Uint32Array([1, 2, 3, 4]));
    expect(gpu.ctx.staging.created).toBe(created);
    array.destroy();
  });

  it('uploads through kept, mapped staging buffers, piece by piece and in queue order', async () => {
    const ctx = gpu.ctx;
    // Pieces of 4 KiB and every write through the pool: 10,003 words are ten pieces, the last partial.
    const pool = new UploadPool(ctx, { chunkBytes: 4096, minBytes: 0 });
    const words = 10_003;
    const target = await ctx.createBuffer({
      label: 'uploaded',
      size: 4 * (words + 5),
      usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    });
    const data = Uint32Array.from({ length: words }, (_, i) => Math.imul(i + 3, 2_654_435_761) >>> 0);
    await ctx.guard('upload', () => pool.write(target, 20, data));
    const back = new Uint32Array(await ctx.readBuffer(target));
    expect(back.subarray(0, 5)).toEqual(new Uint32Array(5));
    expect(back.subarray(5)).toEqual(data);
    expect(pool.created).toBe(10);
    // Mapped again once their copies ran: the next writes of those sizes create none.
    await pool.settled();
    expect(pool.cachedBytes).toBe(10 * 4096);
    // The caller's array may change as soon as write returns; a small queue write after an
    // upload lands after it, an upload after a small queue write lands after that.
    const second = data.map((x) => x ^ 0xffff);
    await ctx.guard('upload again', () => {
      pool.write(target, 20, second);
      second.fill(7);
      ctx.queue.writeBuffer(target, 20, Uint32Array.of(1, 2));
      ctx.queue.writeBuffer(target, 4 * (words + 3), Uint32Array.of(9, 9));
      pool.write(target, 4 * (words + 3), Uint32Array.of(5, 6));
    });
    const again = new Uint32Array(await ctx.readBuffer(target));
    expect(again.subarray(5, 7)).toEqual(Uint32Array.of(1, 2));
    expect(again.subarray(7, words + 3)).toEqual(data.subarray(2, words - 2).map((x) => x ^ 0xffff));
    expect(again.subarray(words + 3)).toEqual(Uint32Array.of(5, 6));
    // The ten pieces took kept buffers; the 8-byte write, of a class not kept yet, a new one.
    expect(pool.created).toBe(11);
    expect(() => pool.write(target, 2, data)).toThrow(RangeError);
    expect(() => pool.write(target, 0, new Uint8Array(6))).toThrow(RangeError);
    expect(() => pool.write(target, 24, data)).toThrow(RangeError);
    expect(() => new UploadPool(ctx, { chunkBytes: 6 })).toThrow(RangeError);
    expect(() => new UploadPool(ctx, { minBytes: -1 })).toThrow(RangeError);
    // Destroyed, it keeps nothing and still writes.
    pool.destroy();
    expect(pool.cachedBytes).toBe(0);
    await ctx.guard('after destroy', () => pool.write(target, 0, Uint32Array.of(11, 12, 13)));
    await pool.settled();
    expect(pool.cachedBytes).toBe(0);
    expect(new Uint32Array(await ctx.readBuffer(target, 0, 12))).toEqual(Uint32Array.of(11, 12, 13));
    target.destroy();
  });

  it('writes large data through its upload pool and small data through the queue', async () => {
    const ctx = gpu.ctx;
    const words = ctx.uploads.minBytes / 4;
    const target = await ctx.createBuffer({
      label: 'context upload',
      size: 4 * words,
      usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    });
    await ctx.uploads.settled();
    const created = ctx.uploads.created;
    const kept = ctx.uploads.cachedBytes;
    await ctx.writeBuffer(target, 0, new Uint32Array(words - 1).fill(3));
    expect(ctx.uploads.created).toBe(created);
    const data = Uint32Array.from({ length: words }, (_, i) => i);
    await ctx.writeBuffer(target, 0, data);
    expect(new Uint32Array(await ctx.readBuffer(target))).toEqual(data);
    // One staging buffer of that size: created now, or one the context kept from an earlier write.
    await ctx.uploads.settled();
    expect(ctx.uploads.created - created + kept / (4 * words)).toBeGreaterThanOrEqual(1);
    const createdAfter = ctx.uploads.created;
    await ctx.writeBuffer(target, 0, data.reverse());
    expect(new Uint32Array(await ctx.readBuffer(target))).toEqual(data);
    expect(ctx.uploads.created).toBe(createdAfter);
    target.destroy();
  });

  it('reads a range of several 64 MiB chunks intact', async () => {
    // 150 MiB from an odd offset: three chunks, the last partial, each landing at its own place.
    const words = (150 * 2 ** 20) / 4;
    const data = new Uint32Array(words + 7);
    for (let i = 0; i < data.length; i++) data[i] = Math.imul(i, 2_654_435_761) >>> 0;
    const buffer = await gpu.ctx.createBuffer({
      label: 'chunked readback',
      size: data.byteLength,
      usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    });
    await gpu.ctx.writeBuffer(buffer, 0, data);
    const back = new Uint32Array(await gpu.ctx.readBuffer(buffer, 7 * 4, words * 4));
    expect(back.length).toBe(words);
    let mismatches = 0;
    for (let i = 0; i < words; i++) if (back[i] !== data[i + 7]) mismatches++;
    expect(mismatches).toBe(0);
    buffer.destroy();
  }, 120_000);

  it('reads and writes through concurrent callers without mixing their data', async () => {
    const arrays = await Promise.all(
      Array.from({ length: 8 }, (_, k) =>
        createGpuArray(gpu.ctx, { label: `c${k}`, type: 'u32', data: [k, k * k] }),
      ),
    );
    const back = await Promise.all(arrays.map((a) => a.read()));
    expect(back.map((values) => [...values])).toEqual(back.map((_, k) => [k, k * k]));
    for (const a of arrays) a.destroy();
  });

  it('reads ranges recorded into a submission once it has run, reusing staging buffers', async () => {
    const ctx = gpu.ctx;
    const data = Uint32Array.from({ length: 300 }, (_, i) => Math.imul(i + 1, 2_654_435_761) >>> 0);
    const source = await ctx.createBuffer({
      label: 'recorded',
      size: data.byteLength,
      usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    });
    await ctx.writeBuffer(source, 0, data);
    const readTwice = async () => {
      const staged: StagedRead[] = [];
      const submitted = ctx.guard('recorded reads', () => {
        const encoder = ctx.device.createCommandEncoder();
        staged.push(ctx.staging.recordRead(encoder, source, 0, 16));
        staged.push(ctx.staging.recordRead(encoder, source, 40 * 4, 200 * 4));
        // A write after the copies in the same queue must not reach what they copied.
        encoder.clearBuffer(source, 0, 64);
        ctx.queue.submit([encoder.finish()]);
      });
      const [, first, second] = await Promise.all([submitted, ...staged.map((read) => read.read())]);
      expect(new Uint32Array(first as ArrayBuffer)).toEqual(data.subarray(0, 4));
      expect(new Uint32Array(second as ArrayBuffer)).toEqual(data.subarray(40, 240));
      await ctx.writeBuffer(source, 0, data);
    };
    await readTwice();
    const created = ctx.staging.created;
    for (let i = 0; i < 5; i++) await readTwice();
    expect(ctx.staging.created).toBe(created);
    const encoder = ctx.device.createCommandEncoder();
    expect(() => ctx.staging.recordRead(encoder, source, 4, data.byteLength)).toThrow(RangeError);
    source.destroy();
  });

  it('maps a recorded read and copies out as many of its bytes as asked, once', async () => {
    const ctx = gpu.ctx;
    const data = Uint32Array.from({ length: 64 }, (_, i) => (i * 7919 + 13) >>> 0);
    const source = await ctx.createBuffer({
      label: 'mapped',
      size: data.byteLength,
      usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    });
    await ctx.writeBuffer(source, 0, data);
    const mapTwo = async () => {
      let staged: StagedRead[] = [];
      const submitted = ctx.guard('mapped reads', () => {
        const encoder = ctx.device.createCommandEncoder();
        staged = [
          ctx.staging.recordRead(encoder, source, 0, 8),
          ctx.staging.recordRead(encoder, source, 16, 128),
        ];
        ctx.queue.submit([encoder.finish()]);
      });
      const [, count, rest] = await Promise.all([submitted, ...staged.map((read) => read.mapped())]);
      return { count: count as MappedRead, rest: rest as MappedRead };
    };
    const { count, rest } = await mapTwo();
    expect(rest.byteLength).toBe(128);
    // The first read's words say how many of the second's to keep (here: data[0] % 32 words).
    const words = new Uint32Array(count.take())[0] as number;
    const kept = new Uint32Array(rest.take(4 * (words % 32)));
    expect([...kept]).toEqual([...data.subarray(4, 4 + (words % 32))]);
    expect(() => rest.take()).toThrow(/taken twice/);
    // Both staging buffers went back to the pool: the same reads again create none.
    const created = ctx.staging.created;
    const again = await mapTwo();
    expect(() => again.rest.take(132)).toThrow(RangeError);
    expect(new Uint32Array(again.rest.take(0)).length).toBe(0);
    again.count.take();
    expect(ctx.staging.created).toBe(created);
    source.destroy();
  });

  it.each([
    { chunkBytes: 4096, chunksInFlight: 3, bytes: 4096 * 7 + 12, offset: 0 },
    { chunkBytes: 4096, chunksInFlight: 1, bytes: 4096 * 3 + 8, offset: 4 },
    { chunkBytes: 256, chunksInFlight: 8, bytes: 256 * 2, offset: 64 },
    { chunkBytes: 1024, chunksInFlight: 3, bytes: 100, offset: 8 },
  ])(
    'reads $bytes bytes at $offset in chunks of $chunkBytes, $chunksInFlight in flight',
    async ({ chunkBytes, chunksInFlight, bytes, offset }) => {
      const ctx = gpu.ctx;
      const pool = new StagingPool(ctx, { chunkBytes, chunksInFlight });
      const data = Uint32Array.from(
        { length: (offset + bytes) / 4 },
        (_, i) => Math.imul(i + 1, 2_654_435_761) >>> 0,
      );
      const source = await ctx.createBuffer({
        label: 'chunked',
        size: data.byteLength,
        usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
      });
      await ctx.writeBuffer(source, 0, data);
      const expected = data.subarray(offset / 4);
      expect(new Uint32Array(await pool.read(source, offset, bytes))).toEqual(expected);
      const into = new Uint8Array(bytes + 8).fill(0xee);
      await pool.readInto(source, offset, bytes, into);
      expect(new Uint32Array(into.buffer, 0, bytes / 4)).toEqual(expected);
      // Nothing past the read is written.
      expect([...into.subarray(bytes)]).toEqual(new Array(8).fill(0xee));
      // Staging buffers went back to the pool: a second read creates none.
      const created = pool.created;
      await pool.read(source, offset, bytes);
      expect(pool.created).toBe(created);
      pool.releaseCached();
      source.destroy();
    },
  );

  it('refuses a chunk size that is not a positive multiple of 4, and no chunk in flight', () => {
    expect(() => new StagingPool(gpu.ctx, { chunkBytes: 6 })).toThrow(RangeError);
    expect(() => new StagingPool(gpu.ctx, { chunkBytes: 0 })).toThrow(RangeError);
    expect(() => new StagingPool(gpu.ctx, { chunksInFlight: 0 })).toThrow(RangeError);
  });

  it('reads into memory whose pages worker threads touched first', async () => {
    const ctx = gpu.ctx;
    const toucher = await createPageToucher(3);
    expect(toucher).toBeDefined();
    if (!toucher) return;
    try {
      expect(toucher.threads).toBe(3);
      // An odd size: three unequal shares, the last one partial.
      const bytes = 5 * 2 ** 20 + 4 * 1234;
      const into = await toucher.allocate(bytes);
      expect(into.byteLength).toBe(bytes);
      expect(into.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(into.every((b) => b === 0)).toBe(true);
      const data = Uint32Array.from({ length: bytes / 4 }, (_, i) => Math.imul(i, 2_654_435_761) >>> 0);
      const source = await ctx.createBuffer({
        label: 'touched',
        size: bytes + 16,
        usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
      });
      await ctx.writeBuffer(source, 16, data);
      await ctx.staging.readInto(source, 16, bytes, into);
      expect(new Uint32Array(into.buffer, 0, bytes / 4)).toEqual(data);
      await expect(ctx.staging.readInto(source, 0, 64, new Uint8Array(32))).rejects.toThrow(RangeError);
      source.destroy();
    } finally {
      toucher.destroy();
    }
  });

  it('keeps one set of page-touching workers a context, and ends them with the context', async () => {
    const ctx = await acquireGpu({ require: true, retainBytes: 0 });
    if (!ctx) throw new Error('unreachable: require');
    const first = await ctx.pageToucher();
    expect(first).toBeDefined();
    if (!first) return;
    // The same workers on every call: starting them is what the context saves its callers.
    expect(await ctx.pageToucher()).toBe(first);
    const into = await first.allocate(3 * 4096 + 8);
    expect(into.every((b) => b === 0)).toBe(true);
    const terminate = vi.fn();
    // The workers' own terminate runs too; the spy only sees that destroy() reached them.
    const destroy = first.destroy.bind(first);
    first.destroy = () => {
      terminate();
      destroy();
    };
    ctx.destroy();
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(terminate).toHaveBeenCalledTimes(1);
    expect(() => ctx.pageToucher()).toThrow(GpuDeviceLostError);
  });

  it('rejects reads and writes past the end', async () => {
    const array = await createGpuArray(gpu.ctx, { label: 'bounds', type: 'u32', length: 4 });
    await expect(array.write([1, 2], 3)).rejects.toThrow(RangeError);
    await expect(array.read(2, 3)).rejects.toThrow(RangeError);
    array.destroy();
  });
});

describe('acquireGpu without an adapter', () => {
  const noAdapter = { requestAdapter: async () => null } as unknown as GPU;

  it('returns null so callers can use the CPU engine', async () => {
    expect(await acquireGpu({ gpu: noAdapter, require: false })).toBeNull();
  });

  it('throws GpuUnavailableError when a GPU is required', async () => {
    await expect(acquireGpu({ gpu: noAdapter, require: true })).rejects.toBeInstanceOf(GpuUnavailableError);
  });
});

describe('device loss', () => {
  it('is reported as GpuDeviceLostError, and the wrapped device of a caller is left alive', async () => {
    const ctx = await acquireGpu();
    if (!ctx) {
      expect(process.env.GPUMORPH_REQUIRE_GPU).not.toBe('1');
      return;
    }
    const wrapped = wrapDevice(ctx.device);
    wrapped.destroy(); // does not own the device
    const array = await createGpuArray(ctx, { label: 'alive', type: 'u32', data: [7] });
    expect([...(await array.read())]).toEqual([7]);
    ctx.device.destroy(); // simulate loss of the device under the context
    await ctx.device.lost;
    expect(ctx.isLost).toBe(true);
    await expect(array.read()).rejects.toBeInstanceOf(GpuDeviceLostError);
    await expect(createGpuArray(ctx, { label: 'after', type: 'u32', length: 1 })).rejects.toBeInstanceOf(
      GpuDeviceLostError,
    );
    ctx.destroy();
  });
});
