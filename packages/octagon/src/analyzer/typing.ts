/**
 * The types of the analyzer language: each variable an integer unless declared `real` in its
 * scope (the main program or a procedure), and the type of each expression, which decides how
 * `/` and `%` round and whether an assignment to an integer variable truncates.
 * @module
 */
import type { Rounding } from '../dbm/apron/tree';
import { OctagonParseError } from '../errors';
import type { Expr, Procedure, Program, Stmt, VarType } from './parse';

/** The variable types of one scope (absent: `int`). */
export type ScopeTypes = ReadonlyMap<string, VarType>;

/** The types of a program: per scope (`null`: the main program), and each procedure's return value. */
export interface ProgramTypes {
  readonly scopes: ReadonlyMap<string | null, ScopeTypes>;
  /** Whether a variable anywhere is real (the analysis then runs on mixed octagons). */
  readonly anyReal: boolean;
}

/**
 * The type of an expression: `real` when it reads a real variable or a decimal literal, or
 * divides with `/_r`; `/` and `%` of integers round to integers (towards zero, as C) unless
 * written with another rounding.
 */
export function typeOf(e: Expr, vars: ScopeTypes): VarType {
  switch (e.kind) {
    case 'num':
    case 'unknown':
    case 'index':
      return 'int';
    case 'decimal':
      return 'real';
    case 'var':
      return vars.get(e.name) ?? 'int';
    case 'neg':
      return typeOf(e.arg, vars);
    case 'bin': {
      if (e.round) return e.round.type;
      return typeOf(e.left, vars) === 'real' || typeOf(e.right, vars) === 'real' ? 'real' : 'int';
    }
  }
}

/** The rounding of a `/` or `%` node: as written, else C's integer rounding for integers, else none. */
export function roundingOf(e: Expr & { kind: 'bin' }, vars: ScopeTypes): Rounding | undefined {
  if (e.round) return e.round;
  if (e.op !== '/' && e.op !== '%') return undefined;
  return typeOf(e, vars) === 'int' ? { type: 'int', dir: 'zero' } : { type: 'real' };
}

function declared(body: readonly Stmt[], out: Map<string, VarType>): void {
  for (const s of body) {
    if (s.kind === 'var') {
      for (const name of s.names) {
        const had = out.get(name);
        if (had !== undefined && had !== s.type)
          throw new OctagonParseError(s.pos, `'${name}' declared both int and real`);
        out.set(name, s.type);
      }
    } else if (s.kind === 'if') {
      declared(s.then, out);
      declared(s.else, out);
    } else if (s.kind === 'while') declared(s.body, out);
  }
}

function returns(body: readonly Stmt[], out: Expr[]): Expr[] {
  for (const s of body) {
    if (s.kind === 'return' && s.value) out.push(s.value);
    else if (s.kind === 'if') {
      returns(s.then, out);
      returns(s.else, out);
    } else if (s.kind === 'while') returns(s.body, out);
  }
  return out;
}

function procedureTypes(p: Procedure): Map<string, VarType> {
  const out = new Map<string, VarType>();
  for (const [i, q] of p.params.entries()) out.set(q, p.paramTypes[i] ?? 'int');
  const params = new Map(out);
  declared(p.body, out);
  for (const [q, t] of params) {
    if (out.get(q) !== t)
      throw new OctagonParseError(p.pos, `parameter '${q}' of '${p.name}' declared again with another type`);
    out.set(`${q}@in`, t);
  }
  const real = returns(p.body, []).some((e) => typeOf(e, out) === 'real');
  out.set('@ret', real ? 'real' : 'int');
  return out;
}

/**
 * The variable types of every scope of a program. Throws {@link OctagonParseError} where a
 * variable is declared both `int` (`var`) and `real` in one scope.
 *
 * @example
 * ```ts
 * const t = programTypes(parseProgram('real x; x = 1 /_r 3;'));
 * t.scopes.get(null)?.get('x'); // 'real'
 * ```
 */
export function programTypes(program: Program): ProgramTypes {
  const scopes = new Map<string | null, ScopeTypes>();
  const main = new Map<string, VarType>();
  declared(program.body, main);
  scopes.set(null, main);
  for (const p of program.procedures) scopes.set(p.name, procedureTypes(p));
  const anyReal = [...scopes.values()].some((s) => [...s.values()].includes('real'));
  return { scopes, anyReal };
}
