/**
 * The EigenCFA program encoding of §5.2.2/§5.3.2: binary CPS numbered so that lambda `l` is store
 * row `l`, its first formal row `lams + l` and its second formal row `2·lams + l`; each call site
 * keeps three look-up entries — the store rows of its function and its two arguments.
 * @module
 */
import { MatrixFormatError } from '../errors';

/**
 * A binary-CPS program as EigenCFA's look-up vectors (the `Fun.mat`, `Arg1.mat`, `Arg2.mat` and
 * `program-params.lst` files of the data folder).
 *
 * @example
 * ```ts
 * const m = createCfaMatrices({ lams: 1, fun: [0], arg1: [0], arg2: [0] }); // ((λ0 (a b) …) λ0 λ0)
 * m.rows; // 3
 * ```
 */
export interface CfaMatrices {
  /** |Lam|: rows 0 … lams−1 are the lambdas (each row holds only itself). */
  readonly lams: number;
  /** |Var| = 2·|Lam| (two formals per lambda). */
  readonly vars: number;
  /** |Call|; call 0 is the program's top call and call l+1 the body of lambda l when the program comes from our front end or the data folder. */
  readonly calls: number;
  /** The word size written to `program-params.lst` (32). */
  readonly wordSize: number;
  /** Store rows of each call's function, first argument and second argument. */
  readonly fun: Uint32Array;
  readonly arg1: Uint32Array;
  readonly arg2: Uint32Array;
  /** 3·lams. */
  readonly rows: number;
  /**
   * Arity-aware flows ({@link CfaArity}): a call pairs with λ only where λ accepts its argument
   * count. Absent: every lambda reaching a call's function row is applied there.
   */
  readonly arity?: CfaArity | undefined;
}

/**
 * Which calls a lambda may be applied at: call c has an arity class `calls[c]` (0 … 30: the source
 * arguments it and the applications after it pass, 30 meaning 30 or more; 31: any count, e.g. a
 * continuation's call or `apply`'s), lambda l a mask `lambdas[l]` of the classes it accepts (bit 31
 * always set). The pair (c, l) binds l's formals iff bit `calls[c]` of `lambdas[l]` is set.
 *
 * @example
 * ```ts
 * arityAccepts(arityMask(2), 2); // true: (lambda (x y) …) at (f a b)
 * arityAccepts(arityMask(2), 1); // false: … at (f a)
 * ```
 */
export interface CfaArity {
  readonly lambdas: Uint32Array;
  readonly calls: Uint32Array;
}

/** Arity classes 0 … 30 count arguments (30: that many or more); class 31 accepts every lambda. */
export const ARITY_ANY = 31;
const ARITY_MAX = 30;

/**
 * The class of a call that passes `remaining` source arguments (undefined: any count).
 *
 * @example
 * ```ts
 * arityClass(2); // 2
 * arityClass(undefined); // 31
 * ```
 */
export function arityClass(remaining: number | undefined): number {
  return remaining === undefined ? ARITY_ANY : Math.min(remaining, ARITY_MAX);
}

/**
 * The mask of a lambda applied to `min` … `max` arguments (`max` null: any number from `min`;
 * both omitted: any count).
 *
 * @example
 * ```ts
 * arityMask(1).toString(2); // '10000000000000000000000000000010'
 * arityMask(2, null); // 2 or more
 * arityMask(0, 1); // none or one
 * ```
 */
export function arityMask(min?: number, max: number | null = min ?? null): number {
  if (min === undefined) return 0xffff_ffff;
  const low = Math.min(Math.max(0, min), ARITY_MAX);
  const high = max === null ? ARITY_MAX : Math.min(max, ARITY_MAX);
  let mask = 1 << ARITY_ANY;
  for (let r = low; r <= high; r++) mask |= 1 << r;
  return mask >>> 0;
}

/**
 * Whether a lambda of mask `mask` is applied at a call of class `cls`.
 *
 * @example
 * ```ts
 * arityAccepts(arityMask(1, null), 4); // true
 * ```
 */
export function arityAccepts(mask: number, cls: number): boolean {
  return ((mask >>> cls) & 1) === 1;
}

/**
 * Checks and wraps look-up vectors. Throws {@link MatrixFormatError} when a vector's length is not
 * the number of calls or an entry is not a store row.
 *
 * @example
 * ```ts
 * const m = createCfaMatrices({ lams: 14, fun, arg1, arg2 });
 * ```
 */
export function createCfaMatrices(init: {
  lams: number;
  fun: ArrayLike<number>;
  arg1: ArrayLike<number>;
  arg2: ArrayLike<number>;
  vars?: number;
  wordSize?: number;
  file?: string;
  arity?: CfaArity | undefined;
}): CfaMatrices {
  const file = init.file ?? '<matrices>';
  const lams = init.lams;
  const calls = init.fun.length;
  if (!Number.isInteger(lams) || lams < 1) throw new MatrixFormatError(file, `lams must be ≥ 1, got ${lams}`);
  const vars = init.vars ?? 2 * lams;
  if (vars !== 2 * lams) throw new MatrixFormatError(file, `vars must be 2·lams = ${2 * lams}, got ${vars}`);
  const rows = 3 * lams;
  const check = (name: string, v: ArrayLike<number>) => {
    if (v.length !== calls)
      throw new MatrixFormatError(file, `${name} has ${v.length} entries, Fun has ${calls}`);
    const out = new Uint32Array(calls);
    for (let i = 0; i < calls; i++) {
      const x = v[i] as number;
      if (!Number.isInteger(x) || x < 0 || x >= rows)
        throw new MatrixFormatError(file, `${name}[${i}] = ${x} is not a store row (0 … ${rows - 1})`);
      out[i] = x;
    }
    return out;
  };
  const arity = init.arity;
  if (arity) {
    if (arity.lambdas.length !== lams || arity.calls.length !== calls)
      throw new MatrixFormatError(
        file,
        `arity has ${arity.lambdas.length} lambda masks and ${arity.calls.length} call classes, for ${lams} lambdas and ${calls} calls`,
      );
    arity.calls.forEach((c, i) => {
      if (c > ARITY_ANY)
        throw new MatrixFormatError(file, `arity class of call ${i} is ${c} (0 … ${ARITY_ANY})`);
    });
    arity.lambdas.forEach((mask, l) => {
      if (!arityAccepts(mask, ARITY_ANY))
        throw new MatrixFormatError(file, `arity mask of λ${l} lacks bit ${ARITY_ANY} (any count)`);
    });
  }
  return {
    lams,
    vars,
    calls,
    wordSize: init.wordSize ?? 32,
    fun: check('Fun', init.fun),
    arg1: check('Arg1', init.arg1),
    arg2: check('Arg2', init.arg2),
    rows,
    ...(arity ? { arity } : {}),
  };
}

/**
 * Total terms = lams + vars + calls (the "Terms" column of the paper's Table 1).
 *
 * @example
 * ```ts
 * termCount({ lams: 55_564, vars: 111_128, calls: 55_565 }); // 222257 (n = 1792)
 * ```
 */
export function termCount(m: Pick<CfaMatrices, 'lams' | 'vars' | 'calls'>): number {
  return m.lams + m.vars + m.calls;
}

/**
 * Names a store row the way the README does: `λ12`, `a12` (first formal of λ12), `b12` (second).
 *
 * @example
 * ```ts
 * rowName(14, 17); // 'a3'
 * ```
 */
export function rowName(lams: number, row: number): string {
  if (row < lams) return `λ${row}`;
  if (row < 2 * lams) return `a${row - lams}`;
  return `b${row - 2 * lams}`;
}
