import { closeMatrix, f64Bounds, Octagon } from './src/index';
import { randomBlockHalf } from './src/bench/index';
function t(f: () => unknown, r = 11) { for (let i = 0; i < 2; i++) f(); const ts: number[] = []; for (let i = 0; i < r; i++) { const s = performance.now(); f(); ts.push(performance.now() - s); } ts.sort((a, b) => a - b); return (ts[r >> 1] as number).toFixed(3); }
for (const n of [128, 512, 1024]) {
  const b = randomBlockHalf(n, 8, 0xb10c + n);
  const p = Int32Array.from({ length: n }, (_, v) => v - (v % 8));
  console.log(n, 'scan+dense-strengthen', t(() => closeMatrix(Float64Array.from(b), n, f64Bounds, true)),
    'decomposed', t(() => new Octagon(f64Bounds, 'int', n, b, false, null, p).isEmpty()),
    'decomposed+materialize', t(() => new Octagon(f64Bounds, 'int', n, b, false, null, p).closedMatrix()),
    'copy', t(() => Float64Array.from(b)));
}
