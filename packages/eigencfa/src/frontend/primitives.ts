/**
 * The primitives the front end applies inline, and how each one touches the abstract heap.
 *
 * The heap model (docs/decisions/eigencfa-heap-model.md): every value stored in a pair, vector, box,
 * hash table, multiple-value return or rest-argument list flows into one program-wide mutable cell,
 * `%heap`, and every value taken out of such a structure is read from it. A primitive is one of:
 * - **basic** (`BASIC_PRIMITIVES`): its result is a number, character, string, symbol, boolean,
 *   port, a structure it builds from basic values only, or a list/pair that is *part of its
 *   argument* (`member`, `list-tail`): applying it evaluates its arguments and returns the basic value;
 * - **constructor** (`CONSTRUCTORS`): it keeps its arguments in a structure and returns that
 *   structure (a basic value): its arguments are written to `%heap`;
 * - **access** (every other name of `PRIMITIVES`): it may return any value it was given or that a
 *   structure holds (`car`, `vector-ref`, `hash-table-ref/default`, `values`): its arguments are
 *   written to `%heap` and its result is `%heap`.
 * No inline primitive calls a procedure: every higher-order standard procedure is defined in
 * Scheme in the prelude (`prelude.ts`).
 * @module
 */

const CXR: string[] = [];
for (let n = 2; n <= 4; n++) {
  const walk = (prefix: string, left: number): void => {
    if (left === 0) {
      CXR.push(`c${prefix}r`);
      return;
    }
    walk(`${prefix}a`, left - 1);
    walk(`${prefix}d`, left - 1);
  };
  walk('', n);
}

const BASIC = `
+ - * / = < > <= >= abs quotient remainder modulo gcd lcm min max number? integer? rational? real?
complex? exact? inexact? exact->inexact inexact->exact exact inexact zero? positive? negative? odd?
even? floor ceiling round truncate sqrt exact-integer-sqrt expt exp log sin cos tan asin acos atan
number->string string->number square cube add1 sub1 1+ -1+ exact-integer? exact-rational?
exact-nonnegative-integer? nan? infinite? finite? floor/ truncate/ floor-quotient floor-remainder
truncate-quotient truncate-remainder numerator denominator rationalize exact-integer-sqrt
make-rectangular make-polar real-part imag-part magnitude angle bitwise-and bitwise-or bitwise-xor
bitwise-not arithmetic-shift shift-left shift-right fix:+ fix:- fix:* fix:< fix:= fix:> flo:+ flo:-
flo:* flo:/ fx+ fx- fx* fx< fx= fx> fl+ fl- fl* fl/ fl< fl= fl> fixnum? flonum?
not boolean? eq? eqv? equal? boolean=? pair? null? list? length
memq memv member assq assv assoc list-tail last-pair list-index
symbol? symbol->string string->symbol symbol-append symbol<? string? make-string string string-length
string-ref string-set! string=? string<? string>? string<=? string>=? string-ci=? string-ci<?
string-ci>? string-ci<=? string-ci>=? substring string-append string->list list->string string-copy
string-copy! string-fill! string-upcase string-downcase string-foldcase string-index string-search-forward
string-search-backward string-search-all string-null? string-join string-split string-contains
string-prefix? string-suffix? string-pad-left string-pad-right string-reverse string->vector
vector->string
char? char=? char<? char>? char<=? char>=? char-ci=? char-ci<? char-ci>? char-ci<=? char-ci>=?
char-alphabetic? char-numeric? char-whitespace? char-upper-case? char-lower-case? char->integer
integer->char char-upcase char-downcase char-foldcase digit-value char->digit digit->char
vector? vector-length bytevector? make-bytevector bytevector bytevector-u8-ref bytevector-u8-set!
bytevector-length bytevector-copy bytevector-copy! bytevector-append utf8->string string->utf8
procedure? display write write-shared write-simple newline write-char write-string write-u8
write-bytevector read read-char peek-char read-line read-string read-u8 peek-u8 read-bytevector
char-ready? u8-ready? current-output-port current-input-port current-error-port flush-output-port
flush-output open-input-string open-output-string get-output-string open-input-bytevector
open-output-bytevector get-output-bytevector open-input-file open-output-file close-port
close-input-port close-output-port input-port? output-port? textual-port? binary-port? port?
input-port-open? output-port-open? file-exists? delete-file eof-object eof-object? void runtime
real-time current-time current-second current-jiffy jiffies-per-second random gensym
generate-uninterned-symbol exit emergency-exit assert hash-table? hash-table-contains?
hash-table-exists? hash-table-count hash-table-size hash-table-delete! hash-table-clear! hash-table/count
hash-table/remove! hash-table/clean! box? promise? default-object? features command-line
get-environment-variable error-object? file-error? read-error?
record? condition/report-string char-ascii? exact-floor exact-round exact-ceiling exact-truncate
list-set! vector-fill! vector-grow subvector vector-head vector-tail symbol=? bit-and bit-or bit-xor
hash string-hash equal-hash eq-hash eqv-hash pp read-bytevector! get-environment-variables
stream-pair? stream-null? empty-stream? char-ascii? exact-floor
`;

const CONSTRUCT = `
cons list cons* make-list vector make-vector list->vector vector->list vector-copy vector-append
vector-copy! append append! reverse reverse! list-copy set-car! set-cdr! vector-set! box set-box!
make-hash-table make-equal-hash-table make-strong-eqv-hash-table make-strong-eq-hash-table
make-eqv-hash-table make-eq-hash-table make-string-hash-table hash-table-set! hash-table/put!
make-initialized-list iota quasiquote list-set! vector-fill! vector-grow subvector vector-head
vector-tail delete delete! remove-duplicates delete-duplicates last-pair except-last-pair!
except-last-pair list-head sublist make-parameter-cell
`;

const ACCESS = `
car cdr ${CXR.join(' ')} list-ref first second third fourth fifth sixth seventh eighth ninth tenth
last vector-ref vector-first vector-last unbox hash-table-ref/default hash-table/get hash-table-ref
hash-table-keys hash-table/key-list hash-table-values hash-table/datum-list hash-table->alist
hash-table-copy values error-object-message error-object-irritants condition/report-string access-condition
stream-car stream-first
`;

const words = (text: string) => text.split(/\s+/).filter(Boolean);

/**
 * Procedures whose effect the analysis cannot model: they run code the program does not contain
 * (`eval`, `load`) or hand out environments. They are access primitives (arguments stored, any
 * heap value returned), and every use is listed in the results' `unknown`: flows there may be
 * missing.
 *
 * @example
 * ```ts
 * OUTSIDE_MODEL.has('eval'); // true
 * ```
 */
export const OUTSIDE_MODEL: ReadonlySet<string> = new Set([
  'eval',
  'load',
  'environment',
  'interaction-environment',
  'scheme-report-environment',
  'null-environment',
  'system-global-environment',
  'the-environment',
]);

/**
 * Primitives whose result is a basic value and that keep none of their arguments.
 *
 * @example
 * ```ts
 * BASIC_PRIMITIVES.has('+'); // true
 * ```
 */
export const BASIC_PRIMITIVES: ReadonlySet<string> = new Set(
  words(BASIC).filter((w) => !words(CONSTRUCT).includes(w)),
);

/**
 * Primitives that keep their arguments in a new or given structure (written to `%heap`) and return
 * a basic value.
 *
 * @example
 * ```ts
 * CONSTRUCTORS.has('cons'); // true
 * ```
 */
export const CONSTRUCTORS: ReadonlySet<string> = new Set(words(CONSTRUCT));

/**
 * Every name the front end applies inline when the program does not bind it (basic, constructor
 * and access primitives).
 *
 * @example
 * ```ts
 * PRIMITIVES.has('cadddr'); // true
 * ```
 */
export const PRIMITIVES: ReadonlySet<string> = new Set([
  ...words(BASIC),
  ...words(CONSTRUCT),
  ...words(ACCESS),
  ...OUTSIDE_MODEL,
]);

/** How applying primitive `name` touches the heap. */
export type PrimitiveEffect = 'basic' | 'construct' | 'access';

/**
 * The heap effect of a primitive.
 *
 * @example
 * ```ts
 * primitiveEffect('car'); // 'access'
 * primitiveEffect('cons'); // 'construct'
 * ```
 */
export function primitiveEffect(name: string): PrimitiveEffect {
  if (CONSTRUCTORS.has(name)) return 'construct';
  if (BASIC_PRIMITIVES.has(name)) return 'basic';
  return 'access';
}
