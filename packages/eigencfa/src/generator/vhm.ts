/**
 * The Van Horn–Mairson benchmark generator (§6.2): programs of any size n whose 0CFA is hard.
 * @module
 */

/** Which member of the family. */
export type VhmVariant = 'let' | 'plain';

/**
 * The Van Horn–Mairson program of size n.
 *
 * - `let` (default): the data folder's variant, each level
 *   `((lambda (fi) (let* ((di (fi #t))) (fi #f))) (lambda (xi) …))`, innermost
 *   `((lambda (z) (z x1 … xn)) (lambda (y1 … yn) y1))`; our front end turns it into the data
 *   folder's matrices exactly.
 * - `plain`: the worst-case family of Van Horn and Mairson as published, each level
 *   `((lambda (fi) (fi #t) (fi #f)) (lambda (xi) …))` (two calls in a body, no binding).
 *
 * @example
 * ```ts
 * vanHornMairson(2);
 * // ((lambda (f1) (let* ((d1 (f1 #t))) (f1 #f))) (lambda (x1) ((lambda (f2) …
 * ```
 */
export function vanHornMairson(n: number, variant: VhmVariant = 'let'): string {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}`);
  const parts: string[] = [];
  for (let i = 1; i <= n; i++) {
    const body = variant === 'let' ? `(let* ((d${i} (f${i} #t))) (f${i} #f))` : `(f${i} #t) (f${i} #f)`;
    parts.push(`((lambda (f${i}) ${body}) (lambda (x${i}) `);
  }
  const xs = Array.from({ length: n }, (_, i) => `x${i + 1}`).join(' ');
  const ys = Array.from({ length: n }, (_, i) => `y${i + 1}`).join(' ');
  const inner = `((lambda (z) (z ${xs})) (lambda (${ys}) y1))`;
  return `${parts.join('')}${inner}${'))'.repeat(n)}`;
}

/**
 * The data folder's `program.scm` text for size n (a header comment, then the program).
 *
 * @example
 * ```ts
 * vanHornMairsonFile(2).split('\n')[0]; // '; n = 2'
 * ```
 */
export function vanHornMairsonFile(n: number, variant: VhmVariant = 'let'): string {
  return `; n = ${n}\n${vanHornMairson(n, variant)}\n`;
}
