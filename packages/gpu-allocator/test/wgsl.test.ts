import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineBindings, dispatchGrid, linkWgsl, readStaticUses, type WgslModule } from '../src/index';

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

describe('BindingLayout.pick', () => {
  const layout = defineBindings('t', {
    params: { kind: 'uniform', type: 'Params' },
    src: { kind: 'storage', type: 'array<u32>', access: 'read' },
    dst: { kind: 'storage', type: 'array<u32>' },
  });

  it('keeps the number of each picked binding, in binding order, and binds only those', () => {
    const picked = layout.pick(['dst', 'params']);
    expect(picked.names).toEqual(['params', 'dst']);
    expect(picked.entries().map((e) => [e.binding, e.buffer?.type])).toEqual([
      [0, 'uniform'],
      [2, 'storage'],
    ]);
    // The WGSL still declares every binding of the module.
    expect(picked.wgsl()).toBe(layout.wgsl());
    const buffer = { mapAsync: () => undefined } as unknown as GPUBuffer;
    // Resources for the other names may be passed and are left out.
    expect(
      picked.bindGroupEntries({ params: buffer, src: buffer, dst: buffer }).map((e) => e.binding),
    ).toEqual([0, 2]);
  });

  it('keys picked layouts apart from the whole one and from each other', () => {
    const keys = [
      layout,
      layout.pick(['params', 'src', 'dst']),
      layout.pick(['src']),
      layout.pick(['dst']),
    ].map((l) => l.key);
    expect(new Set(keys).size).toBe(4);
    expect(layout.pick(['src']).key).toBe(layout.pick(['src']).key);
  });

  it('refuses a name the layout does not have', () => {
    expect(() => layout.pick(['nope' as never])).toThrow(/no binding 'nope'/);
  });
});

describe('readStaticUses', () => {
  const code = `
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> a: array<u32>;
@group(0) @binding(2) var<storage, read_write> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> c: array<u32>;
@group(0) @binding(4) var<storage, read_write> c2: array<u32>;
struct Params { n: u32 }
const LIMIT: u32 = 0x1fu;
fn leaf(i: u32) -> u32 { return b[i] + LIMIT; }
// fn fake() { c[0] = 1u; } is a comment, not a function that names c
fn middle(i: u32) -> u32 { /* c[0] /* nested */ c[1] */ return leaf(i) + 1u; }
fn unused() { c[0] = 2u; }
@compute @workgroup_size(1) fn one() { a[0] = middle(params.n); }
@compute @workgroup_size(1) fn two() { let c = 3u; a[0] = c; }
@compute @workgroup_size(1) fn three() { c2[0] = 1e5f; }
`;
  const names = ['params', 'a', 'b', 'c', 'c2'];
  const uses = readStaticUses(code);

  it('follows calls transitively and skips comments, nested block comments included', () => {
    expect([...uses.usedBy('one', names)].sort()).toEqual(['a', 'b', 'params']);
  });

  it('tells names apart from longer ones and from numbers', () => {
    expect([...uses.usedBy('three', names)]).toEqual(['c2']);
  });

  it('counts a local that shadows a name as a use (one too many, never one too few)', () => {
    expect([...uses.usedBy('two', names)].sort()).toEqual(['a', 'c']);
  });

  it('lists the functions, and refuses an entry point the module lacks', () => {
    expect(uses.functions).toEqual(['leaf', 'middle', 'unused', 'one', 'two', 'three']);
    expect(uses.has('unused')).toBe(true);
    expect(() => uses.usedBy('four', names)).toThrow(/no function 'four'/);
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
