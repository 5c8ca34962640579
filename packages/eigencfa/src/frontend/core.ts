/**
 * The core language the expander produces and the CPS converter takes, and the source variables,
 * lambdas and call sites it keeps track of.
 * @module
 */
import type { SourcePos } from '../errors';
import type { Datum } from './reader';

/** What a source variable was bound by. */
export type SourceVarKind = 'parameter' | 'let' | 'define' | 'synthetic';

/** A variable after alpha-renaming: one per binding occurrence in the source. */
export interface SourceVar {
  readonly name: string;
  /** Unique among the program's variables. */
  readonly id: number;
  readonly pos: SourcePos;
  readonly kind: SourceVarKind;
  /** Assigned by some `set!` (such variables are read through a write procedure, §5.2.2). */
  mutable: boolean;
}

/** Where a lambda term of the core (and then of the CPS program) comes from. */
export type LambdaOrigin =
  | { readonly kind: 'lambda'; readonly pos: SourcePos; readonly name?: string | undefined }
  | { readonly kind: 'primitive'; readonly pos: SourcePos; readonly name: string }
  | { readonly kind: 'absorb'; readonly pos: SourcePos }
  | { readonly kind: 'thunk'; readonly pos: SourcePos };

/**
 * How many arguments a source procedure's first curried step is applied to: `min` … `max` (null:
 * any number from `min`); each later step takes one fewer.
 */
export interface LambdaArity {
  readonly min: number;
  readonly max: number | null;
}

/** A source call site (an application in the program text). */
export interface SourceCallSite {
  readonly id: number;
  readonly pos: SourcePos;
  /** The operator as written (shortened). */
  readonly operator: string;
  readonly argumentCount: number;
}

/** The core language. */
export type Core =
  | { readonly k: 'ref'; readonly v: SourceVar; readonly pos: SourcePos }
  | {
      readonly k: 'lam';
      readonly params: readonly SourceVar[];
      readonly body: Core;
      readonly pos: SourcePos;
      readonly origin: LambdaOrigin;
      /** A source procedure's arity (arity-aware flows); absent: it may be applied to any count. */
      readonly arity?: LambdaArity;
    }
  | {
      readonly k: 'app';
      readonly fn: Core;
      readonly arg: Core | null;
      readonly pos: SourcePos;
      readonly site?: SourceCallSite;
      /**
       * In a source call of known argument count, the arguments this application and the ones
       * after it pass (`(f a b)`: 2 for `(f a)`, 1 for the application to `b`; `(f)`: 0).
       */
      readonly remaining?: number;
    }
  | { readonly k: 'if'; readonly c: Core; readonly t: Core; readonly e: Core; readonly pos: SourcePos }
  | { readonly k: 'set'; readonly v: SourceVar; readonly e: Core; readonly pos: SourcePos }
  | { readonly k: 'bind'; readonly v: SourceVar; readonly init: Core; readonly body: Core }
  | { readonly k: 'seq'; readonly first: Core; readonly rest: Core }
  | { readonly k: 'const'; readonly value: 'basic' | 'true' | 'false'; readonly pos: SourcePos }
  | { readonly k: 'prim'; readonly name: string; readonly args: readonly Core[]; readonly pos: SourcePos }
  | { readonly k: 'callcc'; readonly f: Core; readonly pos: SourcePos }
  | { readonly k: 'halt'; readonly args: readonly Core[]; readonly pos: SourcePos };

/** What {@link expandProgram} returns. */
export interface ExpandedProgram {
  readonly body: Core;
  readonly variables: readonly SourceVar[];
  readonly callSites: readonly SourceCallSite[];
  /** Uses of what the analysis does not model (`eval`, `load`, …): its results may miss flows. */
  readonly unknown: readonly OutsideModel[];
}

/** A use of a procedure the analysis does not model. */
export interface OutsideModel {
  readonly name: string;
  readonly pos: SourcePos;
}

export const isSym = (d: Datum | undefined, name?: string): d is Extract<Datum, { t: 'sym' }> =>
  d !== undefined && d.t === 'sym' && (name === undefined || d.name === name);
export const isList = (d: Datum | undefined): d is Extract<Datum, { t: 'list' }> =>
  d !== undefined && d.t === 'list';

/**
 * `(f a b c)` → `(((f a) b) c)`; `(f)` → `(f <void>)`. The first application carries the source site;
 * with a site of known argument count, each application says how many arguments remain
 * (`remaining`, for arity-aware flows).
 *
 * @example
 * ```ts
 * curriedApp(f, [a, b], pos, undefined); // { k: 'app', fn: { k: 'app', fn: f, arg: a, … }, arg: b, … }
 * ```
 */
export function curriedApp(
  fn: Core,
  args: readonly Core[],
  pos: SourcePos,
  site: SourceCallSite | undefined,
): Core {
  // apply's site has no known count (-1): its applications may reach any arity.
  const known = site !== undefined && site.argumentCount >= 0;
  const remaining = (i: number) => (known ? { remaining: Math.max(0, args.length - i) } : {});
  if (args.length === 0)
    return site ? { k: 'app', fn, arg: null, pos, site, ...remaining(0) } : { k: 'app', fn, arg: null, pos };
  let result: Core = site
    ? { k: 'app', fn, arg: args[0] as Core, pos, site, ...remaining(0) }
    : { k: 'app', fn, arg: args[0] as Core, pos };
  for (let i = 1; i < args.length; i++)
    result = { k: 'app', fn: result, arg: args[i] as Core, pos, ...remaining(i) };
  return result;
}
