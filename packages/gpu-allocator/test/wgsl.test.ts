import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineBindings, dispatchGrid, linkWgsl, type WgslModule } from '../src/index';

describe('linkWgsl', () => {
  const base: WgslModule = { name: 'base', code: 'const BASE: u32 = 1u;', enables: ['subgroups'] };
  const mid: WgslModule = { name: 'mid', code: 'fn mid() -> u32 { return BASE; }', requires: [base] };
  const other: WgslModule = {
    name: 'other',
    code: 'fn other() -> u32 { return BASE + 1u; }',
    requires: [base],
    enables: ['subgroups'],
    diagnostics: ['off, subgroup_uniformity'],
  };

  it('emits directives first, each module once, dependencies before dependants', () => {
    const code = linkWgsl('fn main() {}', [mid, other]);
    expect(code.match(/enable subgroups;/g)).toHaveLength(1);
    expect(code.indexOf('enable subgroups;')).toBe(0);
    expect(code.match(/const BASE/g)).toHaveLength(1);
    expect(code.indexOf('const BASE')).toBeLessThan(code.indexOf('fn mid'));
    expect(code.indexOf('diagnostic(off, subgroup_uniformity);')).toBeLessThan(code.indexOf('const BASE'));
    expect(code.trimEnd().endsWith('fn main() {}')).toBe(true);
  });

  it('rejects two different modules under one name', () => {
    expect(() => linkWgsl('', [base, { name: 'base', code: 'const OTHER: u32 = 2u;' }])).toThrow(
      /two different/,
    );
  });

  it('rejects a module that requires itself', () => {
    const loop: { name: string; code: string; requires: WgslModule[] } = {
      name: 'loop',
      code: '',
      requires: [],
    };
    loop.requires.push(loop);
    expect(() => linkWgsl('', [loop])).toThrow(/requires itself/);
  });
});

describe('defineBindings', () => {
  it('derives WGSL declarations and layout entries from one description', () => {
    const layout = defineBindings('t', {
      params: { kind: 'uniform', type: 'Params' },
      src: { kind: 'storage', type: 'array<u32>', access: 'read' },
      dst: { kind: 'storage', type: 'array<u32>' },
    });
    expect(layout.wgsl(1).split('\n')).toEqual([
      '@group(1) @binding(0) var<uniform> params: Params;',
      '@group(1) @binding(1) var<storage, read> src: array<u32>;',
      '@group(1) @binding(2) var<storage, read_write> dst: array<u32>;',
    ]);
    expect(layout.entries().map((e) => e.buffer?.type)).toEqual(['uniform', 'read-only-storage', 'storage']);
    expect(() => layout.bindGroupEntries({} as never)).toThrow(/no resource for binding 'params'/);
  });
});

describe('dispatchGrid', () => {
  it('keeps small dispatches one-dimensional', () => {
    expect(dispatchGrid(0)).toEqual({ x: 0, y: 1, z: 1 });
    expect(dispatchGrid(65_535)).toEqual({ x: 65_535, y: 1, z: 1 });
  });

  it('folds large dispatches into two dimensions within the limit, covering every workgroup', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 65_535 * 65_535 }),
        fc.integer({ min: 2, max: 65_535 }),
        (n, max) => {
          fc.pre(n <= max * max);
          const g = dispatchGrid(n, max);
          expect(g.x).toBeLessThanOrEqual(max);
          expect(g.y).toBeLessThanOrEqual(max);
          expect(g.x * g.y).toBeGreaterThanOrEqual(n);
          // Surplus workgroups stay below one row, so a kernel wastes little.
          expect(g.x * g.y - n).toBeLessThan(g.y);
        },
      ),
    );
  });

  it('refuses what no grid can hold', () => {
    expect(() => dispatchGrid(10, 3)).toThrow(/exceed/);
    expect(() => dispatchGrid(-1)).toThrow(RangeError);
  });
});
