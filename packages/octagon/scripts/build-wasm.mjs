#!/usr/bin/env node
// Assembles the octagon closure's WebAssembly SIMD kernels (the O(n²) sweep of one Floyd–Warshall
// pivot over a half matrix of doubles, two cells per f64x2 instruction, and the min-plus update of
// a row by a packed panel of pivots, which the blocked closure uses) from the WAT below into
// packages/octagon/src/dbm/wasm/kernels.ts (base64). Run `node packages/octagon/scripts/build-wasm.mjs`
// after changing the WAT; the output is committed so a build needs no WebAssembly toolchain.
import { writeFileSync } from 'node:fs';
import wabtFactory from 'wabt';

// sweep(m, nodes, a, b, as, bs): for every row i of the half matrix at byte offset m (row i starts
// at cell ((i+1)² >> 1) and holds (i|1)+1 cells, an even count at an even cell: 16-byte aligned),
// m[i][j] = min(m[i][j], a[i] + bs[j], b[i] + as[j]). Rows whose a[i] and b[i] are both +inf are
// skipped. Only called when every sum is exact (the closure's exact-grid path).
const wat = `(module
  (import "env" "memory" (memory 1 65536))
  (func (export "sweep") (param $m i32) (param $n i32) (param $a i32) (param $b i32) (param $as i32) (param $bs i32)
    (local $i i32) (local $row i32) (local $end i32) (local $j i32) (local $i1 i32)
    (local $ai f64) (local $bi f64) (local $va v128) (local $vb v128) (local $v v128) (local $w v128)
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $ai (f64.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $bi (f64.load (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $i1 (i32.add (local.get $i) (i32.const 1)))
        (if (i32.eqz (i32.and (f64.eq (local.get $ai) (f64.const inf)) (f64.eq (local.get $bi) (f64.const inf))))
          (then
            (local.set $row (i32.add (local.get $m)
              (i32.shl (i32.shr_u (i32.mul (local.get $i1) (local.get $i1)) (i32.const 1)) (i32.const 3))))
            (local.set $end (i32.add (local.get $row)
              (i32.shl (i32.add (i32.or (local.get $i) (i32.const 1)) (i32.const 1)) (i32.const 3))))
            (local.set $va (f64x2.splat (local.get $ai)))
            (local.set $vb (f64x2.splat (local.get $bi)))
            (local.set $j (i32.const 0))
            ;; two f64x2 per iteration while at least four cells remain
            (block $quad_done
              (loop $quads
                (br_if $quad_done (i32.gt_u (i32.add (local.get $row) (i32.const 32)) (local.get $end)))
                (local.set $v (v128.load (local.get $row)))
                (local.set $w (v128.load offset=16 (local.get $row)))
                (local.set $v (f64x2.min (local.get $v)
                  (f64x2.add (local.get $va) (v128.load (i32.add (local.get $bs) (local.get $j))))))
                (local.set $w (f64x2.min (local.get $w)
                  (f64x2.add (local.get $va) (v128.load offset=16 (i32.add (local.get $bs) (local.get $j))))))
                (local.set $v (f64x2.min (local.get $v)
                  (f64x2.add (local.get $vb) (v128.load (i32.add (local.get $as) (local.get $j))))))
                (local.set $w (f64x2.min (local.get $w)
                  (f64x2.add (local.get $vb) (v128.load offset=16 (i32.add (local.get $as) (local.get $j))))))
                (v128.store (local.get $row) (local.get $v))
                (v128.store offset=16 (local.get $row) (local.get $w))
                (local.set $row (i32.add (local.get $row) (i32.const 32)))
                (local.set $j (i32.add (local.get $j) (i32.const 32)))
                (br $quads)))
            (if (i32.lt_u (local.get $row) (local.get $end))
              (then
                (local.set $v (v128.load (local.get $row)))
                (local.set $v (f64x2.min (local.get $v)
                  (f64x2.add (local.get $va) (v128.load (i32.add (local.get $bs) (local.get $j))))))
                (local.set $v (f64x2.min (local.get $v)
                  (f64x2.add (local.get $vb) (v128.load (i32.add (local.get $as) (local.get $j))))))
                (v128.store (local.get $row) (local.get $v))))))
        (local.set $i (local.get $i1))
        (br $rows))))

  ;; minplus(dst, len, a, panel, k): dst[j] = min(dst[j], min over kk < k of a[kk] + P[kk][j]) for
  ;; j < len (len and k even), where the panel P is packed in chunks of 8 columns: P[kk][j] is the
  ;; double at panel + 8·((j >> 3)·8k + 8kk + (j & 7)), so the k rows of a chunk are contiguous.
  ;; Eight cells stay in four f64x2 registers across the candidates, taken two at a time so each
  ;; register waits on one minimum per pair. pmin (b < a ? b : a, one instruction) is the
  ;; comparison of the JavaScript loop; the values are never NaN.
  (func (export "minplus") (param $dst i32) (param $len i32) (param $a i32) (param $panel i32) (param $k i32)
    (local $end i32) (local $full i32) (local $p i32) (local $ap i32) (local $aend i32) (local $s v128) (local $t v128)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local.set $end (i32.add (local.get $dst) (i32.shl (local.get $len) (i32.const 3))))
    (local.set $full (i32.add (local.get $dst) (i32.shl (i32.and (local.get $len) (i32.const -8)) (i32.const 3))))
    (local.set $aend (i32.add (local.get $a) (i32.shl (local.get $k) (i32.const 3))))
    (block $chunks_done
      (loop $chunks
        (br_if $chunks_done (i32.ge_u (local.get $dst) (local.get $full)))
        (local.set $v0 (v128.load (local.get $dst)))
        (local.set $v1 (v128.load offset=16 (local.get $dst)))
        (local.set $v2 (v128.load offset=32 (local.get $dst)))
        (local.set $v3 (v128.load offset=48 (local.get $dst)))
        (local.set $ap (local.get $a))
        (local.set $p (local.get $panel))
        (block $ks_done
          (loop $ks
            (br_if $ks_done (i32.ge_u (local.get $ap) (local.get $aend)))
            (local.set $s (v128.load64_splat (local.get $ap)))
            (local.set $t (v128.load64_splat offset=8 (local.get $ap)))
            (local.set $v0 (f64x2.pmin (local.get $v0) (f64x2.pmin
              (f64x2.add (local.get $s) (v128.load (local.get $p)))
              (f64x2.add (local.get $t) (v128.load offset=64 (local.get $p))))))
            (local.set $v1 (f64x2.pmin (local.get $v1) (f64x2.pmin
              (f64x2.add (local.get $s) (v128.load offset=16 (local.get $p)))
              (f64x2.add (local.get $t) (v128.load offset=80 (local.get $p))))))
            (local.set $v2 (f64x2.pmin (local.get $v2) (f64x2.pmin
              (f64x2.add (local.get $s) (v128.load offset=32 (local.get $p)))
              (f64x2.add (local.get $t) (v128.load offset=96 (local.get $p))))))
            (local.set $v3 (f64x2.pmin (local.get $v3) (f64x2.pmin
              (f64x2.add (local.get $s) (v128.load offset=48 (local.get $p)))
              (f64x2.add (local.get $t) (v128.load offset=112 (local.get $p))))))
            (local.set $ap (i32.add (local.get $ap) (i32.const 16)))
            (local.set $p (i32.add (local.get $p) (i32.const 128)))
            (br $ks)))
        (v128.store (local.get $dst) (local.get $v0))
        (v128.store offset=16 (local.get $dst) (local.get $v1))
        (v128.store offset=32 (local.get $dst) (local.get $v2))
        (v128.store offset=48 (local.get $dst) (local.get $v3))
        (local.set $dst (i32.add (local.get $dst) (i32.const 64)))
        (local.set $panel (i32.add (local.get $panel) (i32.shl (local.get $k) (i32.const 6))))
        (br $chunks)))
    ;; the last 2, 4 or 6 cells, a pair at a time, in the last (partial) chunk of the panel
    (block $pairs_done
      (loop $pairs
        (br_if $pairs_done (i32.ge_u (local.get $dst) (local.get $end)))
        (local.set $v0 (v128.load (local.get $dst)))
        (local.set $ap (local.get $a))
        (local.set $p (local.get $panel))
        (block $ks2_done
          (loop $ks2
            (br_if $ks2_done (i32.ge_u (local.get $ap) (local.get $aend)))
            (local.set $v0 (f64x2.pmin (local.get $v0)
              (f64x2.add (v128.load64_splat (local.get $ap)) (v128.load (local.get $p)))))
            (local.set $ap (i32.add (local.get $ap) (i32.const 8)))
            (local.set $p (i32.add (local.get $p) (i32.const 64)))
            (br $ks2)))
        (v128.store (local.get $dst) (local.get $v0))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (local.set $panel (i32.add (local.get $panel) (i32.const 16)))
        (br $pairs)))))`;

// The cell-by-cell kernels of join, meet, widening and narrowing over half matrices at byte
// offsets d, a, b (16-byte aligned) of len cells (even: a half matrix has 2n(n+1)), four cells per
// iteration then a last pair: d[p] = op(a[p], b[p]). pmax/pmin (one instruction each, no branch:
// a random matrix makes the branch of a JavaScript ternary mispredict half the time); widening
// keeps a where b <= a, else +inf; narrowing takes b where a is +inf. The values are never NaN.
// le(a, b, len) and eq(a, b, len) return 1 when every a[p] <= b[p] (resp. =), stopping early.
const binary = (name, op) => `
  (func (export "${name}") (param $d i32) (param $a i32) (param $b i32) (param $len i32)
    (local $end i32) (local $x v128) (local $y v128)
    (local.set $end (i32.add (local.get $d) (i32.shl (local.get $len) (i32.const 3))))
    (block $quads_done
      (loop $quads
        (br_if $quads_done (i32.gt_u (i32.add (local.get $d) (i32.const 32)) (local.get $end)))
        (local.set $x (v128.load (local.get $a)))
        (local.set $y (v128.load (local.get $b)))
        (v128.store (local.get $d) ${op})
        (local.set $x (v128.load offset=16 (local.get $a)))
        (local.set $y (v128.load offset=16 (local.get $b)))
        (v128.store offset=16 (local.get $d) ${op})
        (local.set $d (i32.add (local.get $d) (i32.const 32)))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $b (i32.add (local.get $b) (i32.const 32)))
        (br $quads)))
    (if (i32.lt_u (local.get $d) (local.get $end))
      (then
        (local.set $x (v128.load (local.get $a)))
        (local.set $y (v128.load (local.get $b)))
        (v128.store (local.get $d) ${op}))))`;
const compare = (name, fails) => `
  (func (export "${name}") (param $a i32) (param $b i32) (param $len i32) (result i32)
    (local $end i32) (local $x v128) (local $y v128)
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $len) (i32.const 3))))
    (block $done
      (loop $pairs
        (br_if $done (i32.ge_u (local.get $a) (local.get $end)))
        (local.set $x (v128.load (local.get $a)))
        (local.set $y (v128.load (local.get $b)))
        (if (v128.any_true ${fails}) (then (return (i32.const 0))))
        (local.set $a (i32.add (local.get $a) (i32.const 16)))
        (local.set $b (i32.add (local.get $b) (i32.const 16)))
        (br $pairs)))
    (i32.const 1))`;
const X = '(local.get $x)';
const Y = '(local.get $y)';
const INF2 = '(v128.const f64x2 inf inf)';
const elementwiseWat = `(module
  (import "env" "memory" (memory 1 65536))${binary('max', `(f64x2.pmax ${X} ${Y})`)}${binary('min', `(f64x2.pmin ${X} ${Y})`)}${binary(
    'widen',
    `(v128.bitselect ${X} ${INF2} (f64x2.le ${Y} ${X}))`,
  )}${binary('narrow', `(v128.bitselect ${Y} ${X} (f64x2.eq ${X} ${INF2}))`)}${compare(
    'le',
    `(f64x2.gt ${X} ${Y})`,
  )}${compare('eq', `(f64x2.ne ${X} ${Y})`)})`;

const wabt = await wabtFactory();
/** The module's bytes, importing a plain or a shared memory (the threaded closure's). */
function assemble(source) {
  const module = wabt.parseWat('closure.wat', source, { simd: true, threads: true });
  module.validate({ simd: true, threads: true });
  return Buffer.from(module.toBinary({}).buffer);
}
const buffer = assemble(wat);
const base64 = buffer.toString('base64');
const shared = assemble(wat.replace('(memory 1 65536)', '(memory 1 65536 shared)')).toString('base64');
const out = new URL('../src/dbm/wasm/kernels.ts', import.meta.url);
writeFileSync(
  out,
  `// Generated by packages/octagon/scripts/build-wasm.mjs from the WAT there; do not edit.\n` +
    `/** WebAssembly SIMD kernels of the f64 closure: one pivot's sweep and a min-plus row update (${buffer.length} bytes). */\n` +
    `export const CLOSURE_KERNEL_BASE64 =\n  '${base64}';\n` +
    `/** The same kernels importing a shared memory (the closure's worker threads). */\n` +
    `export const CLOSURE_KERNEL_SHARED_BASE64 =\n  '${shared}';\n`,
);
console.log(`wrote ${out.pathname}: ${buffer.length} bytes`);
const elementwise = assemble(elementwiseWat);
const elementwiseOut = new URL('../src/dbm/wasm/elementwise-kernels.ts', import.meta.url);
writeFileSync(
  elementwiseOut,
  `// Generated by packages/octagon/scripts/build-wasm.mjs from the WAT there; do not edit.\n` +
    `/** WebAssembly SIMD kernels of join, meet, widening, narrowing, inclusion and equality on f64 half matrices (${elementwise.length} bytes). */\n` +
    `export const ELEMENTWISE_KERNEL_BASE64 =\n  '${elementwise.toString('base64')}';\n` +
    `/** The same kernels importing a shared memory (matrix pools on worker threads). */\n` +
    `export const ELEMENTWISE_KERNEL_SHARED_BASE64 =\n  '${assemble(elementwiseWat.replace('(memory 1 65536)', '(memory 1 65536 shared)')).toString('base64')}';\n`,
);
console.log(`wrote ${elementwiseOut.pathname}: ${elementwise.length} bytes`);
