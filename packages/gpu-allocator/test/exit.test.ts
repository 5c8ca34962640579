import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { describeGpu } from '../src/testing/index';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describeGpu('process lifetime', () => {
  it('lets Node exit by itself after destroy(), with no unhandled rejection', async () => {
    const script = `
      import { acquireGpu, createElementPool, runAllocationProbe } from '@gpumorph/gpu-allocator';
      process.on('unhandledRejection', (e) => { console.error('UNHANDLED', e); process.exit(3); });
      const ctx = await acquireGpu({ require: true });
      const pool = await createElementPool(ctx, { name: 'p', capacity: 64 });
      const out = await runAllocationProbe(ctx, pool, new Uint32Array(100).fill(1));
      console.log('valid', out.filter((e) => e !== 0xffffffff).length);
      ctx.destroy();
    `;
    // Rejects (with the exit code) if the child fails or is killed by the timeout because it hung.
    const run = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--conditions=@gpumorph/source', '--input-type=module', '-e', script],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).not.toContain('UNHANDLED');
    expect(run.stdout).toContain('valid 64');
  });
});

// Dawn delivers a destroyed device's last callbacks through its instance; a freed instance made
// Node abort (134), segfault (139) or hang at exit. `gc()` right after destroy() frees whatever
// nothing holds, so each run tells; the exit status the script sets must be the one Node exits with.
const AFTER_AN_ERROR = {
  'nothing pending': '',
  'a readback in flight': `void data.read().catch(() => undefined);`,
  'an error scope in flight': `void ctx.guard('bad', () => { throw new Error('bad input'); }).catch(() => undefined);`,
};

describeGpu('process exit after an analysis error', () => {
  it.each(Object.entries(AFTER_AN_ERROR))('exits with its own status, %s at destroy()', (_, pending) => {
    const script = `
      import { acquireGpu, createGpuArray } from '@gpumorph/gpu-allocator';
      const ctx = await acquireGpu({ require: true });
      const data = await createGpuArray(ctx, { label: 'data', type: 'u32', data: [1, 2, 3] });
      ${pending}
      try { throw new RangeError('the analysis rejected its input'); } catch {}
      ctx.destroy();
      globalThis.gc();
      process.exitCode = 2;
    `;
    for (let run = 0; run < 3; run++) {
      const child = spawnSync(
        process.execPath,
        [
          '--expose-gc',
          '--import',
          'tsx',
          '--conditions=@gpumorph/source',
          '--input-type=module',
          '-e',
          script,
        ],
        { cwd: root, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' },
      );
      expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toMatchObject({
        status: 2,
        signal: null,
      });
    }
  });
});

it('stays alive while page-touching workers work, and exits after their destroy()', async () => {
  // Awaiting only the workers (nothing else keeps the event loop busy): Node must not exit early.
  const script = `
    import { createPageToucher } from '@gpumorph/gpu-allocator';
    const toucher = await createPageToucher(2);
    const memory = await toucher.allocate(96 * 2 ** 20);
    console.log('touched', memory.byteLength);
    toucher.destroy();
  `;
  const run = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--conditions=@gpumorph/source', '--input-type=module', '-e', script],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  );
  expect(run.stdout).toContain(`touched ${96 * 2 ** 20}`);
});
