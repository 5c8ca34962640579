/**
 * Random Scheme programs for property tests: closed programs over lambdas (fixed and rest
 * arguments), applications, `if`, `let`, `letrec`, `set!`, `call/cc`, `apply`, constants,
 * primitives, and values passed through data structures (pairs, vectors, boxes, hash tables,
 * promises, multiple values, raised objects) and higher-order procedures (`map`, `for-each`,
 * `sort`, `vector-map`, `dynamic-wind`), drawn from a seed so a failure can be replayed.
 * @module
 */

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A random closed Scheme program of roughly `size` nesting levels.
 *
 * @example
 * ```ts
 * const text = randomSchemeProgram(42, 4);
 * compileScheme(text); // always compiles
 * ```
 */
export function randomSchemeProgram(seed: number, size: number): string {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  let fresh = 0;
  const expr = (scope: string[], depth: number): string => {
    const leaf = () =>
      scope.length > 0 && random() < 0.7 ? pick(scope) : pick(['1', '#t', '#f', '"s"', "'q"]);
    if (depth <= 0) return leaf();
    const d = depth - 1;
    const v = () => `v${fresh++}`;
    switch (Math.floor(random() * 12)) {
      case 0:
        return leaf();
      case 1:
      case 2: {
        const x = v();
        return `(lambda (${x}) ${expr([...scope, x], d)})`;
      }
      case 3: {
        const x = v();
        const y = v();
        return `(lambda (${x} ${y}) ${expr([...scope, x, y], d)})`;
      }
      case 4:
        return `(${expr(scope, d)} ${expr(scope, d)})`;
      case 5:
        return `(${expr(scope, d)} ${expr(scope, d)} ${expr(scope, d)})`;
      case 6:
        return `(if ${expr(scope, d)} ${expr(scope, d)} ${expr(scope, d)})`;
      case 7: {
        const x = v();
        return `(let ((${x} ${expr(scope, d)})) ${expr([...scope, x], d)})`;
      }
      case 8: {
        const f = v();
        const x = v();
        return `(letrec ((${f} (lambda (${x}) ${expr([...scope, f, x], d)}))) ${expr([...scope, f], d)})`;
      }
      case 9:
        if (scope.length > 0) return `(begin (set! ${pick(scope)} ${expr(scope, d)}) ${expr(scope, d)})`;
        return `(+ ${expr(scope, d)} 1)`;
      case 10: {
        const k = v();
        return `(call/cc (lambda (${k}) ${expr([...scope, k], d)}))`;
      }
      default: {
        const r = v();
        return pick([
          `((lambda ${r} ${expr([...scope, r], d)}) ${expr(scope, d)} ${expr(scope, d)})`,
          `(apply ${expr(scope, d)} ${expr(scope, d)} '())`,
          `(car (cons ${expr(scope, d)} ${expr(scope, d)}))`,
          `(map ${expr(scope, d)} '(1 2))`,
          `(vector-ref (vector ${expr(scope, d)} ${expr(scope, d)}) 1)`,
          `(unbox (let ((b (box 0))) (set-box! b ${expr(scope, d)}) b))`,
          `(let ((h (make-equal-hash-table))) (hash-table-set! h 1 ${expr(scope, d)}) (hash-table-ref/default h 1 ${expr(scope, d)}))`,
          `(force (delay ${expr(scope, d)}))`,
          `(call-with-values (lambda () (values ${expr(scope, d)} ${expr(scope, d)})) ${expr(scope, d)})`,
          `(guard (e (#t e)) (raise ${expr(scope, d)}))`,
          `(apply ${expr(scope, d)} (list ${expr(scope, d)}))`,
          `(for-each ${expr(scope, d)} (list ${expr(scope, d)}))`,
          `(vector-map ${expr(scope, d)} (vector ${expr(scope, d)}))`,
          `(sort (list ${expr(scope, d)} ${expr(scope, d)}) ${expr(scope, d)})`,
          `(cdr (assq 'k (list (cons 'k ${expr(scope, d)}))))`,
          `(dynamic-wind (lambda () 0) (lambda () ${expr(scope, d)}) (lambda () 0))`,
        ]);
      }
    }
  };
  const defs: string[] = [];
  const names: string[] = [];
  const count = 1 + Math.floor(random() * 3);
  for (let i = 0; i < count; i++) {
    const name = `g${i}`;
    names.push(name);
  }
  for (const name of names) defs.push(`(define ${name} ${expr(names, size)})`);
  return `${defs.join('\n')}\n${expr(names, size)}\n`;
}
