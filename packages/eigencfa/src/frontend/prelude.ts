/**
 * The standard procedures that call procedures, and the control procedures, as the analysis sees
 * them.
 *
 * - {@link CALLING}: library procedures that call a procedure argument (`map`, `sort`, `assoc` with
 *   three arguments, `hash-table-update!`, …). Applied directly, the front end expands them inline:
 *   every procedure argument is called with values read from `%heap` (as many as the call passes
 *   lists, or the fixed count of the table) and what it returns is written to `%heap`. Used as a
 *   value, such a name is a procedure of the prelude built from the same table.
 * - {@link PRELUDE}: Scheme definitions the front end compiles, on demand, at the outermost scope
 *   of the program: `call-with-values`, `dynamic-wind`, `with-exception-handler`, `raise`, `error`,
 *   `force`, `apply` and `call/cc` as values, … . They read and write the program-wide cells
 *   `%heap`, `%handler` (every installed exception handler) and `%promise-value`/`%promise-thunk`.
 *   Their lambdas appear in results as `prim NAME`; their call sites are not source call sites.
 * @module
 */

/** One procedure argument of a {@link CALLING} procedure. */
export interface CalledArgument {
  /** The argument's position. */
  readonly index: number;
  /** How many heap values it is called with: a count, or `'lists'` (the call's argument count − 1). */
  readonly args: number | 'lists';
}

/** A library procedure that calls some of its arguments. */
export interface CallingProcedure {
  readonly calls: readonly CalledArgument[];
  /** `basic`: returns a new structure or a basic value; `heap`: may return a stored or returned value. */
  readonly result: 'basic' | 'heap';
}

const each = (args: number | 'lists', ...indices: number[]) => indices.map((index) => ({ index, args }));
const spec = (result: 'basic' | 'heap', calls: CalledArgument[]): CallingProcedure => ({ calls, result });

/**
 * Procedures that call an argument, by name.
 *
 * @example
 * ```ts
 * CALLING.sort; // calls argument 0 and argument 1 with two heap values (both orders of sort's arguments)
 * ```
 */
export const CALLING: Readonly<Record<string, CallingProcedure>> = {
  map: spec('basic', each('lists', 0)),
  'for-each': spec('basic', each('lists', 0)),
  'vector-map': spec('basic', each('lists', 0)),
  'vector-for-each': spec('basic', each('lists', 0)),
  'string-map': spec('basic', each('lists', 0)),
  'string-for-each': spec('basic', each('lists', 0)),
  'append-map': spec('basic', each('lists', 0)),
  'filter-map': spec('basic', each('lists', 0)),
  'map-in-order': spec('basic', each('lists', 0)),
  any: spec('heap', each('lists', 0)),
  every: spec('heap', each('lists', 0)),
  exists: spec('heap', each('lists', 0)),
  'for-all': spec('heap', each('lists', 0)),
  count: spec('basic', each('lists', 0)),
  filter: spec('basic', each(1, 0)),
  remove: spec('basic', each(1, 0)),
  partition: spec('basic', each(1, 0)),
  'filter!': spec('basic', each(1, 0)),
  'remove!': spec('basic', each(1, 0)),
  'take-while': spec('basic', each(1, 0)),
  'drop-while': spec('basic', each(1, 0)),
  span: spec('basic', each(1, 0)),
  break: spec('basic', each(1, 0)),
  'list-index': spec('basic', each('lists', 0)),
  find: spec('heap', each(1, 0)),
  'find-tail': spec('basic', each(1, 0)),
  assp: spec('basic', each(1, 0)),
  memp: spec('basic', each(1, 0)),
  fold: spec('heap', each('lists', 0)),
  'fold-left': spec('heap', each('lists', 0)),
  'fold-right': spec('heap', each('lists', 0)),
  reduce: spec('heap', each(2, 0)),
  'reduce-left': spec('heap', each(2, 0)),
  'reduce-right': spec('heap', each(2, 0)),
  'delete-duplicates': spec('basic', each(2, 1)),
  sort: spec('basic', each(2, 0, 1)),
  'sort!': spec('basic', each(2, 0, 1)),
  'merge-sort': spec('basic', each(2, 0, 1)),
  'list-sort': spec('basic', each(2, 0, 1)),
  'vector-sort': spec('basic', each(2, 0, 1)),
  'vector-sort!': spec('basic', each(2, 0, 1)),
  'vector-binary-search': spec('heap', each(2, 2)),
  member: spec('basic', each(2, 2)),
  assoc: spec('basic', each(2, 2)),
  'list-tabulate': spec('basic', each(1, 1)),
  'make-initialized-list': spec('basic', each(1, 1)),
  'make-initialized-vector': spec('basic', each(1, 1)),
  'vector-tabulate': spec('basic', each(1, 0)),
  'build-list': spec('basic', each(1, 1)),
  'string-tabulate': spec('basic', each(1, 0)),
  'hash-table-ref': spec('heap', [...each(0, 2), ...each(1, 3)]),
  'hash-table-ref!': spec('heap', each(0, 2)),
  'hash-table-update!': spec('basic', [...each(1, 2), ...each(0, 3)]),
  'hash-table-update!/default': spec('basic', each(1, 2)),
  'hash-table/update!': spec('basic', [...each(1, 2), ...each(0, 3)]),
  'hash-table-walk': spec('basic', each(2, 1)),
  'hash-table-for-each': spec('basic', each(2, 1)),
  'hash-table-fold': spec('heap', each(3, 1)),
  'call-with-output-string': spec('basic', each(1, 0)),
  'with-output-to-string': spec('basic', each(0, 0)),
  'call-with-input-string': spec('heap', each(1, 1)),
  'with-input-from-string': spec('heap', each(0, 1)),
  'call-with-port': spec('heap', each(1, 1)),
  'call-with-input-file': spec('heap', each(1, 1)),
  'call-with-output-file': spec('heap', each(1, 1)),
  'with-input-from-file': spec('heap', each(0, 1)),
  'with-output-to-file': spec('heap', each(0, 1)),
};

/**
 * The prelude: Scheme definitions of the control procedures, compiled on demand at the outermost
 * scope (`0` is a basic value; `(if 0 a b)` runs both branches in the analysis).
 */
export const PRELUDE = `
(define %handler 0)
(define %promise-value 0)
(define %promise-thunk (lambda () 0))
(define (call-with-values producer consumer) (apply consumer (list (producer))))
(define (dynamic-wind before thunk after) (before) (let ((result (thunk))) (after) result))
(define (with-exception-handler handler thunk)
  (set! %handler handler)
  (handler 0)
  (thunk))
(define (raise obj) (%handler obj) (%halt))
(define (raise-continuable obj) (%handler obj))
(define (error . args) (raise 0))
(define (force p) (if 0 p (if 0 %promise-value (%promise-thunk))))
(define (make-promise v) (set! %promise-value v) 0)
(define (apply f . args) (apply f args))
(define (call/cc f) (call/cc f))
(define (call-with-current-continuation f) (call/cc f))
(define (call-with-escape-continuation f) (call/cc f))
(define (within-continuation k thunk) (k (thunk)))
(define (stream-cdr s) (force (cdr s)))
(define (stream-rest s) (force (cdr s)))
(define the-empty-stream '())
(define stream-nil '())
(define true #t)
(define false #f)
(define (make-parameter value . converter)
  (set! %heap value)
  (set! %heap (%heap %heap))
  (lambda args (set! %heap (%heap %heap)) %heap))
`;

/** Names {@link PRELUDE} defines. */
export const PRELUDE_NAMES: ReadonlySet<string> = new Set(
  Array.from(PRELUDE.matchAll(/^\(define \(?([^\s()]+)/gm), (m) => m[1] as string),
);
