// Runs every script of examples/ as its README says (tsx, sources through the @gpumorph/source
// condition, so no build is needed) and checks what it prints.
import { execFile, execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const requireGpu = process.env.GPUMORPH_REQUIRE_GPU === '1';

function haveClang(): boolean {
  try {
    execFileSync('clang-16', ['--version'], { stdio: 'ignore' });
    execFileSync('opt-16', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const clang = haveClang();
if (!clang && process.env.GPUMORPH_REQUIRE_CLANG === '1') {
  throw new Error('GPUMORPH_REQUIRE_CLANG=1 but clang-16/opt-16 are not installed');
}

/** Runs `examples/<script>` with `args`; returns stdout (stderr carries Dawn's notes). */
async function example(script: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    join(root, 'node_modules', '.bin', 'tsx'),
    ['--conditions=@gpumorph/source', join(root, 'examples', script), ...args],
    { cwd: root, timeout: 300_000 },
  );
  return stdout;
}

describe('examples/', () => {
  it.skipIf(!clang)('andersen/points-to-c.ts: the indirect call reaches both handlers', async () => {
    const out = await example('andersen/points-to-c.ts');
    expect(out).toContain('%p in @on_a -> {@a, @b}');
    expect(out).toContain('%d in @push -> {@a, @b}');
    expect(out).toContain('%h in @run -> {%h1 in @main, %h2 in @main}');
    expect(out).toMatch(/^ {2}%call in @push -> \{malloc in @push at line \d+\}$/m);
    expect(out).toMatch(/^ {2}in @run at line \d+ -> \{@on_a, @on_b\}$/m);
  });

  it('eigencfa/cfa-scheme.ts: pred may be either predicate', async () => {
    const out = await example('eigencfa/cfa-scheme.ts');
    expect(out).toMatch(/^engine: (cpu|webgpu)$/m);
    if (requireGpu) expect(out).toContain('engine: webgpu');
    expect(out).toMatch(
      /^ {2}pred@evenodd\.scm:4:19 <- \{λ\(my-(odd|even)\?\)@\S+, λ\(my-(odd|even)\?\)@\S+\}$/m,
    );
    expect(out).toContain('(count-if ...)@evenodd.scm:10:10 -> {λ(count-if)@evenodd.scm:4:1}');
  });

  it('eigencfa/cfa-scheme.ts takes another file', async () => {
    const out = await example('eigencfa/cfa-scheme.ts', join(root, 'examples/eigencfa/church.scm'));
    expect(out).toContain('church.scm');
  });

  it('octagon/analyze-octagon.ts: proves the relational assertions', async () => {
    const out = await example('octagon/analyze-octagon.ts');
    expect(out).toMatch(/^engine: (f64|webgpu); variables: i, j, x, y$/m);
    if (requireGpu) expect(out).toContain('engine: webgpu');
    for (const assertion of ['i == 10', 'x + y == 10', 'x <= 15', 'y >= -5']) {
      expect(out).toContain(`proved: assert(${assertion});`);
    }
    expect(out).toMatch(/^end \(line \d+\): \{.*\bx \+ y <= 10\b.*\}$/m);
    expect(out).toContain('domain: { x <= 10, x + y <= 20, -x + y <= 0, y <= 10 }; y <= 10');
  });

  it('octagon/analyze-octagon.ts reports what it cannot prove', async () => {
    const out = await example('octagon/analyze-octagon.ts', join(root, 'examples/octagon/unproved.oct'));
    expect(out).toContain('NOT proved');
  });

  it('sparse-bitvector/sets.ts: unions report change, then the fixpoint', async () => {
    const out = await example('sparse-bitvector/sets.ts');
    expect(out).toContain('q ∪= p changed q: true; q = {3, 4, 961, 5000}');
    expect(out).toContain('q ∪= p again changed q: false');
    expect(out).toContain('new since last visit: {4, 5000}');
    expect(out).toContain('p + 1 = {4, 962, 5001}');
    expect(out).toContain('p ⊆ q: true, p ∩ {4} ≠ ∅: false');
  });

  it('gpu-primitives/primitives.ts: every GPU result equals its CPU reference', async () => {
    const out = await example('gpu-primitives/primitives.ts', '20000');
    if (!requireGpu && out.startsWith('no WebGPU adapter')) return;
    expect(out).toMatch(/^adapter: /m);
    for (const name of [
      'exclusive scan (add)',
      'compaction (x > 500)',
      'radix sort keys',
      'radix sort values',
    ]) {
      expect(out).toContain(`${name}: GPU = CPU`);
    }
    expect(out).not.toContain('≠');
  });
});
