/**
 * CPS conversion of the core language to binary CPS, with the abstract Church encodings of §4,
 * and the numbering of §5.2.2 into the Fun/Arg1/Arg2 look-up vectors.
 *
 * Binary CPS: every lambda has two formals and every call passes two arguments.
 * - A source procedure `(lambda (x) e)` becomes `(λ (x k) [[e]]k)`: the second formal is the
 *   continuation. n-ary procedures are curried, `(lambda (x y) e)` ≡ `(lambda (x) (lambda (y) e))`,
 *   and n-ary calls apply one argument at a time, `(f a b)` ≡ `((f a) b)`; a call with no
 *   arguments passes the basic value, a procedure with none ignores its one parameter.
 * - A continuation is `(λ (v _) call)`; returning v to continuation K is the call `(K v ID)`
 *   where `ID = (λ (a b) (b a a))` pads the second argument (as in the data folder).
 * - `[[x]]K = (K x ID)`, `[[lam]]K = (K lam' ID)`,
 *   `[[(f e)]]K = [[e]](λ (a _) [[f]](λ (b _) (b a K)))` (argument first, as in the data folder).
 * Abstract Church encodings (§4): halt is Ω, `(λ (a b) ((λ (f g) (f f ID)) (λ (f g) (f f ID)) ID))`;
 * basic values are one such lambda bound to a program-wide variable; `if` drops its test and binds
 * both branches' thunks to one variable through a write procedure (alphatized form of §4.5 and
 * §5.2.2); `set!` goes through the variable's write procedure `(λ (v q) (q ID ID))`; `letrec` is `let`
 * (§4.3) with recursive scope; `#t`/`#f` are Church booleans `(λ (x) (λ (y) x))`/`(λ (x) (λ (y) y))`
 * (the data folder's choice; `booleans: 'basic'` makes them basic values instead).
 * @module
 */
import type { SourcePos } from '../errors';
import { arityClass, arityMask, type CfaMatrices, createCfaMatrices } from '../matrix/program';
import type { LambdaArity } from './core';
import type { Core, LambdaOrigin, SourceCallSite, SourceVar } from './expand';
import { runTrampoline, type Tramp } from './trampoline';

/** Where a binary-CPS lambda comes from: a source construct, or one of the encodings. */
export type CpsOrigin =
  | LambdaOrigin
  | { readonly kind: 'curried'; readonly of: LambdaOrigin }
  | { readonly kind: 'true' | 'false'; readonly pos: SourcePos }
  | { readonly kind: 'basic' }
  | { readonly kind: 'continuation'; readonly pos: SourcePos }
  | { readonly kind: 'admin' | 'pad' | 'halt' | 'branch' | 'join' | 'write' | 'church' };

/** A formal of a binary-CPS lambda. */
export interface CpsVar {
  readonly name: string;
  binder: CpsLam | null;
  /** 0: first formal, 1: second. */
  index: 0 | 1;
}

/** `(λ (v1 v2) call)`. */
export interface CpsLam {
  readonly t: 'lam';
  readonly v1: CpsVar;
  readonly v2: CpsVar;
  readonly body: CpsCall;
  readonly origin: CpsOrigin;
  /** Arity-aware flows: the arity classes it accepts ({@link arityMask}); absent: all. */
  arityMask?: number;
  /** The lambda number, set by {@link numberProgram}. */
  id: number;
}

/** A variable reference. */
export interface CpsRef {
  readonly t: 'ref';
  readonly v: CpsVar;
}

/** `(f e1 e2)`. */
export interface CpsCall {
  readonly t: 'call';
  readonly fn: CpsExp;
  readonly a1: CpsExp;
  readonly a2: CpsExp;
  /** The source application whose operator is applied here (its first argument). */
  site?: SourceCallSite;
  /** Arity-aware flows: the call's arity class ({@link arityClass}); absent: any count. */
  arityClass?: number;
  /** The call number, set by {@link numberProgram}. */
  id: number;
}

/** A binary-CPS expression. */
export type CpsExp = CpsLam | CpsRef;

/** Options of the conversion. */
export interface CpsOptions {
  /** `church` (default, as the data folder): `#t`/`#f` are Church booleans; `basic`: basic values. */
  readonly booleans?: 'church' | 'basic';
  /**
   * Arity-aware flows (default on): a source procedure is applied only at calls whose argument
   * count its parameters accept, at each curried step (see {@link CfaArity}).
   */
  readonly arity?: boolean;
}

/** A converted program: its top call and where source variables live. */
export interface CpsProgram {
  readonly top: CpsCall;
  /** The binary-CPS formal holding each source variable's values (the write procedure's for mutable ones). */
  readonly sourceVars: ReadonlyMap<SourceVar, CpsVar>;
  /** Whether lambdas and calls carry arity masks and classes. */
  readonly arity: boolean;
}

const newVar = (name: string): CpsVar => ({ name, binder: null, index: 0 });
const ref = (v: CpsVar): CpsRef => ({ t: 'ref', v });
const call = (fn: CpsExp, a1: CpsExp, a2: CpsExp): CpsCall => ({ t: 'call', fn, a1, a2, id: -1 });
function lam(v1: CpsVar, v2: CpsVar, body: CpsCall, origin: CpsOrigin): CpsLam {
  const l: CpsLam = { t: 'lam', v1, v2, body, origin, id: -1 };
  v1.binder = l;
  v1.index = 0;
  v2.binder = l;
  v2.index = 1;
  return l;
}
const ADMIN: CpsOrigin = { kind: 'admin' };
const PAD: CpsOrigin = { kind: 'pad' };

/** The padding argument `(λ (a b) (b a a))`. */
function pad(): CpsLam {
  const a = newVar('a');
  const b = newVar('b');
  return lam(a, b, call(ref(b), ref(a), ref(a)), PAD);
}

/** Ω as halt (§4.1): `(λ (a b) ((λ (f g) (f f ID)) (λ (f g) (f f ID)) ID))`. */
function haltLambda(origin: CpsOrigin = { kind: 'halt' }): CpsLam {
  const omega = () => {
    const f = newVar('f');
    const g = newVar('g');
    return lam(f, g, call(ref(f), ref(f), pad()), { kind: 'halt' });
  };
  return lam(newVar('a'), newVar('b'), call(omega(), omega(), pad()), origin);
}

/**
 * Converts an expanded program to binary CPS with halt as its final continuation.
 *
 * @example
 * ```ts
 * const cps = convertToCps(expandProgram('((lambda (x) x) (lambda (y) y))').body);
 * numberProgram(cps).lams; // 14, as the data folder's `smallest`
 * ```
 */
export function convertToCps(body: Core, options: CpsOptions = {}): CpsProgram {
  const conv = new Converter(options);
  let top = runTrampoline(conv.cps(body, haltLambda()));
  if (conv.basicUsed) {
    // Bind the single basic value (a halt lambda, §4.4) around the program.
    top = call(lam(conv.basic, newVar('_'), top, ADMIN), haltLambda({ kind: 'basic' }), pad());
  }
  return { top, sourceVars: conv.sourceVars, arity: conv.arity };
}

class Converter {
  readonly basic = newVar('%basic');
  basicUsed = false;
  readonly sourceVars = new Map<SourceVar, CpsVar>();
  readonly #writers = new Map<SourceVar, CpsVar>();
  readonly #booleans: 'church' | 'basic';
  readonly arity: boolean;

  constructor(options: CpsOptions) {
    this.#booleans = options.booleans ?? 'church';
    this.arity = options.arity ?? true;
  }

  basicRef(): CpsRef {
    this.basicUsed = true;
    return ref(this.basic);
  }

  /** The CPS formal of a source variable (the cell of its write procedure when mutable). */
  varOf(v: SourceVar): CpsVar {
    let c = this.sourceVars.get(v);
    if (!c) {
      c = newVar(v.name);
      this.sourceVars.set(v, c);
    }
    return c;
  }

  /** The variable bound to a mutable variable's write procedure. */
  writerOf(v: SourceVar): CpsVar {
    let w = this.#writers.get(v);
    if (!w) {
      w = newVar(`write-${v.name}`);
      this.#writers.set(v, w);
    }
    return w;
  }

  /** `(K v ID)`. */
  ret(k: CpsExp, v: CpsExp): CpsCall {
    return call(k, v, pad());
  }

  /** Uses K more than once: binds it to a variable first when it is a lambda. */
  *withK(k: CpsExp, body: (kv: CpsVar) => Tramp<CpsCall>): Tramp<CpsCall> {
    if (k.t === 'ref') return (yield body(k.v)) as CpsCall;
    const kv = newVar('k');
    const inner = (yield body(kv)) as CpsCall;
    return call(lam(kv, newVar('_'), inner, ADMIN), k, pad());
  }

  /**
   * Binds source variable v to `value` before `rest`: directly when v is immutable (v is the
   * formal `binderVar`), through the write procedure `(λ (v q) (q ID ID))` when it is mutable.
   */
  bindMutable(v: SourceVar, value: CpsExp, rest: CpsCall): CpsCall {
    const cell = this.varOf(v);
    const q = newVar('q');
    // The continuation gets a padding lambda, not the cell: the cell's values would otherwise join
    // the continuation formal of every write site (quadratic for a cell written at many sites).
    const writeProc = lam(cell, q, call(ref(q), pad(), pad()), { kind: 'write' });
    const w = this.writerOf(v);
    const body = call(ref(w), value, lam(newVar('_'), newVar('_'), rest, ADMIN));
    return call(lam(w, newVar('_'), body, ADMIN), writeProc, pad());
  }

  /**
   * A source lambda's binary-CPS value (curried over its parameters). With `arity`, each curried
   * step accepts calls that pass one argument fewer than the step before.
   */
  *lambda(
    params: readonly SourceVar[],
    body: Core,
    origin: CpsOrigin,
    arity: LambdaArity | undefined,
  ): Tramp<CpsLam> {
    const k = newVar('k');
    const p = params[0];
    const first = p === undefined ? newVar('_') : p.mutable ? newVar(`${p.name}.in`) : this.varOf(p);
    let bodyCall: CpsCall;
    if (params.length <= 1) bodyCall = (yield this.cps(body, ref(k))) as CpsCall;
    else {
      const next = (yield this.lambda(
        params.slice(1),
        body,
        { kind: 'curried', of: origin as LambdaOrigin },
        arity && { min: arity.min - 1, max: arity.max === null ? null : arity.max - 1 },
      )) as CpsLam;
      bodyCall = this.ret(ref(k), next);
    }
    if (p?.mutable) bodyCall = this.bindMutable(p, ref(first), bodyCall);
    const l = lam(first, k, bodyCall, origin);
    if (this.arity && arity) l.arityMask = arityMask(arity.min, arity.max);
    return l;
  }

  /** A Church boolean `(λ (x) (λ (y) x))` or `(λ (x) (λ (y) y))`. */
  church(value: boolean, pos: SourcePos): CpsLam {
    const x = newVar('x');
    const k = newVar('k');
    const y = newVar('y');
    const k2 = newVar('k');
    const inner = lam(y, k2, this.ret(ref(k2), ref(value ? x : y)), { kind: 'church' });
    return lam(x, k, this.ret(ref(k), inner), { kind: value ? 'true' : 'false', pos });
  }

  *cps(e: Core, k: CpsExp): Tramp<CpsCall> {
    switch (e.k) {
      case 'ref':
        return this.ret(k, ref(this.varOf(e.v)));
      case 'const':
        if (e.value !== 'basic' && this.#booleans === 'church')
          return this.ret(k, this.church(e.value === 'true', e.pos));
        return this.ret(k, this.basicRef());
      case 'lam': {
        const l = (yield this.lambda(e.params, e.body, e.origin, e.arity)) as CpsLam;
        return this.ret(k, l);
      }
      case 'app': {
        // [[(f e)]]K = [[e]](λ (a _) [[f]](λ (b _) (b a K)))
        const b = newVar('f');
        const applied = call(ref(b), e.arg === null ? this.basicRef() : ref(newVar('?')), k);
        if (e.site) applied.site = e.site;
        if (this.arity) applied.arityClass = arityClass(e.remaining);
        if (e.arg === null) {
          return (yield this.cps(e.fn, lam(b, newVar('_'), applied, ADMIN))) as CpsCall;
        }
        const a = newVar('a');
        (applied as { a1: CpsExp }).a1 = ref(a);
        const inner = (yield this.cps(e.fn, lam(b, newVar('_'), applied, ADMIN))) as CpsCall;
        return (yield this.cps(e.arg, lam(a, newVar('_'), inner, ADMIN))) as CpsCall;
      }
      case 'seq': {
        const rest = (yield this.cps(e.rest, k)) as CpsCall;
        return (yield this.cps(e.first, lam(newVar('_'), newVar('_'), rest, ADMIN))) as CpsCall;
      }
      case 'bind': {
        const rest = (yield this.cps(e.body, k)) as CpsCall;
        if (e.v.mutable) {
          const tmp = newVar(`${e.v.name}.in`);
          return (yield this.cps(
            e.init,
            lam(tmp, newVar('_'), this.bindMutable(e.v, ref(tmp), rest), ADMIN),
          )) as CpsCall;
        }
        return (yield this.cps(e.init, lam(this.varOf(e.v), newVar('_'), rest, ADMIN))) as CpsCall;
      }
      case 'set': {
        const val = newVar('v');
        const w = this.writerOf(e.v);
        const after = lam(newVar('_'), newVar('_'), this.ret(k, this.basicRef()), ADMIN);
        return (yield this.cps(e.e, lam(val, newVar('_'), call(ref(w), ref(val), after), ADMIN))) as CpsCall;
      }
      case 'if':
        return (yield this.withK(k, (kv) => this.conditional(e, kv))) as CpsCall;
      case 'prim': {
        let result = this.ret(k, this.basicRef());
        for (let i = e.args.length - 1; i >= 0; i--)
          result = (yield this.cps(
            e.args[i] as Core,
            lam(newVar('_'), newVar('_'), result, ADMIN),
          )) as CpsCall;
        return result;
      }
      case 'halt': {
        let result = call(haltLambda(), this.basicRef(), pad());
        for (let i = e.args.length - 1; i >= 0; i--)
          result = (yield this.cps(
            e.args[i] as Core,
            lam(newVar('_'), newVar('_'), result, ADMIN),
          )) as CpsCall;
        return result;
      }
      case 'callcc': {
        const pos = e.pos;
        const f = e.f;
        return (yield this.withK(
          k,
          function* (this: Converter, kv: CpsVar): Tramp<CpsCall> {
            const fv = newVar('f');
            const v = newVar('v');
            const reified = lam(v, newVar('k'), call(ref(kv), ref(v), pad()), { kind: 'continuation', pos });
            return (yield this.cps(
              f,
              lam(fv, newVar('_'), call(ref(fv), reified, ref(kv)), ADMIN),
            )) as CpsCall;
          }.bind(this),
        )) as CpsCall;
      }
    }
  }

  /**
   * `(if c t e)` with continuation kv: the test's value is dropped; both branches' thunks are
   * written to one variable `next` through the write procedure `J = (λ (next q) (q next ID))`,
   * then `(next ID kv)` runs both (§4.5 in alphatized form).
   */
  *conditional(e: Extract<Core, { k: 'if' }>, kv: CpsVar): Tramp<CpsCall> {
    const k1 = newVar('k');
    const k2 = newVar('k');
    const t1 = lam(newVar('_'), k1, (yield this.cps(e.t, ref(k1))) as CpsCall, { kind: 'branch' });
    const t2 = lam(newVar('_'), k2, (yield this.cps(e.e, ref(k2))) as CpsCall, { kind: 'branch' });
    const next = newVar('next');
    const q = newVar('q');
    const join = lam(next, q, call(ref(q), ref(next), pad()), { kind: 'join' });
    const w = newVar('w');
    const run = lam(newVar('_'), newVar('_'), call(ref(next), pad(), ref(kv)), ADMIN);
    const second = lam(newVar('_'), newVar('_'), call(ref(w), t2, run), ADMIN);
    const body = call(lam(w, newVar('_'), call(ref(w), t1, second), ADMIN), join, pad());
    return (yield this.cps(e.c, lam(newVar('_'), newVar('_'), body, ADMIN))) as CpsCall;
  }
}

/** A numbered program: lambdas by number, calls by number, and the look-up vectors. */
export interface NumberedProgram {
  readonly matrices: CfaMatrices;
  /** `lambdas[l]` is λl. */
  readonly lambdas: readonly CpsLam[];
  /** `calls[c]` is call c: call 0 the top call, call l+1 the body of λl. */
  readonly calls: readonly CpsCall[];
}

/**
 * Numbers a binary-CPS program as §5.2.2 and the data folder do: lambdas in pre-order (a call's
 * function, then its first, then its second argument; a lambda before its body), call 0 is the top
 * call and call l+1 the body of λl; a reference to the first formal of λl is row `lams + l`, to
 * the second `2·lams + l`.
 *
 * @example
 * ```ts
 * const { matrices } = numberProgram(convertToCps(expandProgram('((lambda (x) x) (lambda (y) y))').body));
 * Array.from(matrices.fun.slice(0, 3)); // [0, 1, 15]
 * ```
 */
export function numberProgram(program: Pick<CpsProgram, 'top'> & { arity?: boolean }): NumberedProgram {
  const lambdas: CpsLam[] = [];
  const calls: CpsCall[] = [program.top];
  program.top.id = 0;
  const stack: (CpsExp | CpsCall)[] = [program.top];
  while (stack.length > 0) {
    const x = stack.pop() as CpsExp | CpsCall;
    if (x.t === 'call') {
      stack.push(x.a2, x.a1, x.fn);
    } else if (x.t === 'lam') {
      x.id = lambdas.length;
      lambdas.push(x);
      x.body.id = x.id + 1;
      calls.push(x.body);
      stack.push(x.body);
    }
  }
  const L = lambdas.length;
  const row = (e: CpsExp): number => {
    if (e.t === 'lam') return e.id;
    const b = e.v.binder;
    if (b === null || b.id < 0) throw new Error(`internal: variable ${e.v.name} has no numbered binder`);
    return (e.v.index === 0 ? L : 2 * L) + b.id;
  };
  const C = calls.length;
  const fun = new Uint32Array(C);
  const arg1 = new Uint32Array(C);
  const arg2 = new Uint32Array(C);
  for (let c = 0; c < C; c++) {
    const k = calls[c] as CpsCall;
    fun[c] = row(k.fn);
    arg1[c] = row(k.a1);
    arg2[c] = row(k.a2);
  }
  const arity = program.arity
    ? {
        lambdas: Uint32Array.from(lambdas, (l) => l.arityMask ?? arityMask(undefined)),
        calls: Uint32Array.from(calls, (k) => k.arityClass ?? arityClass(undefined)),
      }
    : undefined;
  return { matrices: createCfaMatrices({ lams: L, fun, arg1, arg2, arity }), lambdas, calls };
}
