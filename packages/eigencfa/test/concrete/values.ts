/**
 * Values of the concrete interpreter (the soundness oracle of the tests).
 */
import type { Macro } from '../../src/frontend/macros';
import type { Datum } from '../../src/frontend/reader';

export class Sym {
  static readonly #table = new Map<string, Sym>();
  private constructor(readonly name: string) {}
  static of(name: string): Sym {
    let s = Sym.#table.get(name);
    if (!s) {
      s = new Sym(name);
      Sym.#table.set(name, s);
    }
    return s;
  }
}
export class MString {
  constructor(public s: string) {}
}
export class Char {
  constructor(readonly c: string) {}
}
export class Pair {
  constructor(
    public car: Value,
    public cdr: Value,
  ) {}
}
export class Box {
  constructor(public value: Value) {}
}
export class Values {
  constructor(readonly values: Value[]) {}
}
export class RecordValue {
  constructor(
    readonly type: object,
    readonly fields: Map<string, Value>,
  ) {}
}
export class ErrorObject {
  constructor(
    readonly message: Value,
    readonly irritants: Value,
  ) {}
}
export class PromiseValue {
  constructor(
    public done: boolean,
    public value: Value | (() => Value),
  ) {}
}
export class HashTable {
  readonly map = new Map<unknown, [Value, Value]>();
  constructor(readonly weak: 'eq' | 'equal') {}
}
export class Port {
  text = '';
  constructor(
    public input: string,
    public pos = 0,
  ) {}
}
export const NIL = { nil: true } as const;
export const VOID = { void: true } as const;
export const EOF = { eof: true } as const;
/** A letrec* variable before its initialiser ran (reading it is an error). */
export const UNASSIGNED = { unassigned: true } as const;

/** The environment: a frame of bindings, each remembering its binding occurrence. */
export interface Binding {
  value: Value;
  readonly key: string | null;
}
export class Env {
  readonly vars = new Map<string, Binding>();
  constructor(readonly parent: Env | null) {}
  find(name: string): Binding | undefined {
    for (let e: Env | null = this; e; e = e.parent) {
      const b = e.vars.get(name);
      if (b) return b;
    }
    return undefined;
  }
}

export interface LambdaSpec {
  readonly params: Datum[];
  readonly rest: Datum | null;
  readonly body: Datum[];
  /** The lambda's identity as the analysis names it: `file:line:column` of its form. */
  readonly id: string;
  /** Whether the analysis shows it as a source lambda (facts are recorded only for those). */
  readonly source: boolean;
}
export class Closure {
  constructor(
    readonly spec: LambdaSpec,
    readonly env: Env,
  ) {}
}
export class Primitive {
  constructor(
    readonly name: string,
    readonly fn: (args: Value[]) => Value,
  ) {}
}
export class Continuation {
  active = true;
  constructor(readonly tag: object) {}
}
export class Parameter {
  constructor(
    public value: Value,
    readonly converter: Value | null,
  ) {}
}

export type Value =
  | number
  | boolean
  | Sym
  | MString
  | Char
  | Pair
  | Box
  | Values
  | RecordValue
  | ErrorObject
  | PromiseValue
  | HashTable
  | Port
  | Closure
  | Primitive
  | Continuation
  | Parameter
  | Value[]
  | typeof NIL
  | typeof VOID
  | typeof EOF
  | typeof UNASSIGNED
  | MacroValue
  | Uint8Array;

/** A syntax-rules macro (expanded with the front end's expander of templates). */
export class MacroValue {
  constructor(readonly macro: Macro) {}
}

export const list = (xs: Value[], tail: Value = NIL): Value => {
  let r = tail;
  for (let i = xs.length - 1; i >= 0; i--) r = new Pair(xs[i] as Value, r);
  return r;
};
