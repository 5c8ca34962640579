/**
 * The primitives the front end knows. Applying one evaluates its arguments and returns the single
 * abstract basic value (§4.4); higher-order ones also call their procedure arguments with basic
 * values, so closures passed to `map` or `sort` are seen to be called.
 * @module
 */

/**
 * Procedure arguments of higher-order primitives: index of the procedure → how many arguments it gets (−1: one per list argument).
 *
 * @example
 * ```ts
 * HIGHER_ORDER.sort; // { fn: 1, arity: 2 }: (sort lst less?) calls less? with two basic values
 * ```
 */
export const HIGHER_ORDER: Readonly<Record<string, { readonly fn: number; readonly arity: number }>> = {
  map: { fn: 0, arity: -1 },
  'for-each': { fn: 0, arity: -1 },
  'vector-map': { fn: 0, arity: -1 },
  'vector-for-each': { fn: 0, arity: -1 },
  'string-for-each': { fn: 0, arity: -1 },
  filter: { fn: 0, arity: 1 },
  remove: { fn: 0, arity: 1 },
  partition: { fn: 0, arity: 1 },
  'fold-left': { fn: 0, arity: 2 },
  'fold-right': { fn: 0, arity: 2 },
  fold: { fn: 0, arity: 2 },
  reduce: { fn: 0, arity: 2 },
  sort: { fn: 1, arity: 2 },
  'list-sort': { fn: 0, arity: 2 },
  'vector-sort': { fn: 1, arity: 2 },
  assp: { fn: 0, arity: 1 },
  memp: { fn: 0, arity: 1 },
  find: { fn: 0, arity: 1 },
  'call-with-output-string': { fn: 0, arity: 1 },
  'with-exception-handler': { fn: 0, arity: 1 },
};

const NAMES = `
+ - * / = < > <= >= abs quotient remainder modulo gcd lcm min max number? integer? rational? real?
complex? exact? inexact? exact->inexact inexact->exact exact inexact zero? positive? negative? odd?
even? floor ceiling round truncate sqrt exact-integer-sqrt expt exp log sin cos tan asin acos atan
number->string string->number square add1 sub1 1+ -1+
not boolean? eq? eqv? equal? boolean=?
cons car cdr set-car! set-cdr! caar cadr cdar cddr caaar caadr cadar caddr cdaar cdadr cddar cdddr
cadddr cddddr list list? pair? null? length append reverse list-tail list-ref list-copy last-pair
memq memv member assq assv assoc cons* make-list iota first second third fourth fifth last
delete remove-duplicates list-index any every append! reverse! delete!
symbol? symbol->string string->symbol string? make-string string string-length string-ref
string-set! string=? string<? string>? string<=? string>=? string-ci=? substring string-append
string->list list->string string-copy string-fill! string-upcase string-downcase string-index
string-search-forward string-null? string-join
char? char=? char<? char>? char<=? char>=? char-alphabetic? char-numeric? char-whitespace?
char-upper-case? char-lower-case? char->integer integer->char char-upcase char-downcase digit-value
vector? make-vector vector vector-length vector-ref vector-set! vector->list list->vector
vector-fill! vector-grow subvector vector-copy vector-append
procedure? display write newline write-char write-string read read-char peek-char
current-output-port current-input-port eof-object eof-object? void runtime current-time
random gensym exit assert hash-table? make-hash-table make-equal-hash-table make-strong-eqv-hash-table
hash-table-set! hash-table-ref hash-table-ref/default hash-table/get hash-table/put! hash-table-delete!
hash-table-contains? hash-table-count hash-table-keys hash-table-values
box unbox set-box! box? values string-split list-set! char->digit digit->char
`;

/**
 * Names the front end treats as primitives when they are not bound by the program.
 *
 * @example
 * ```ts
 * PRIMITIVES.has('car'); // true
 * ```
 */
export const PRIMITIVES: ReadonlySet<string> = new Set([
  ...NAMES.split(/\s+/).filter(Boolean),
  ...Object.keys(HIGHER_ORDER),
]);
