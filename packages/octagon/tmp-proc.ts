import { analyzeProgram } from './src/index';
const src = `
proc sum(n) {
  if (n <= 0) { return 0; }
  r = sum(n - 1);
  return n + r;
}
proc inc(x) { return x + 1; }
a = [0, 100];
b = sum(a);
assert(b >= a);
c = inc(a);
assert(c == a + 1);
`;
const r = await analyzeProgram(src, { engine: 'exact' });
for (const p of r.points) console.log(p.pos.line, p.label, p.invariant);
console.log(r.procedures, r.assertions.map((a) => a.proved));
