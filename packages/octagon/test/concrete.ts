import {
  type AnalysisResult,
  type Cond,
  type Expr,
  type OctConstraint,
  type Procedure,
  type Program,
  type ProgramPoint,
  Rational,
  type Stmt,
  toRational,
} from '../src/index';

/** A concrete state: each variable's value (integers for the integer variables). */
export type State = Map<string, Rational>;

/** Whether the state satisfies `si·x_i + sj·x_j ≤ c` over the variables `vars` (by index). */
export function satisfies(state: State, vars: readonly string[], c: OctConstraint): boolean {
  const val = (v: number) => {
    const x = state.get(vars[v] as string);
    if (x === undefined) throw new Error(`no value of ${vars[v]}`);
    return x;
  };
  let lhs = val(c.i).mul(Rational.of(c.si));
  if (c.j !== undefined && c.sj !== undefined) lhs = lhs.add(val(c.j).mul(Rational.of(c.sj)));
  return lhs.le(toRational(c.c));
}

/** The variables a scope declares `real` (its `real` parameters included): written independently of the analyzer. */
function realVars(body: readonly Stmt[], proc: Procedure | null): Set<string> {
  const out = new Set<string>(proc ? proc.params.filter((_, i) => proc.paramTypes[i] === 'real') : []);
  const walk = (ss: readonly Stmt[]) => {
    for (const s of ss) {
      if (s.kind === 'var' && s.type === 'real') for (const n of s.names) out.add(n);
      else if (s.kind === 'if') {
        walk(s.then);
        walk(s.else);
      } else if (s.kind === 'while') walk(s.body);
    }
  };
  walk(body);
  return out;
}

/** Whether an expression is of real type (a real variable, a decimal, a real division). */
function isReal(e: Expr, reals: Set<string>): boolean {
  switch (e.kind) {
    case 'decimal':
      return true;
    case 'var':
      return reals.has(e.name);
    case 'neg':
      return isReal(e.arg, reals);
    case 'bin':
      return e.round ? e.round.type === 'real' : isReal(e.left, reals) || isReal(e.right, reals);
    default:
      return false;
  }
}

/** `q` rounded to an integer in `dir` (ties and `any` either way, by `coin`). */
function roundTo(q: Rational, dir: string | undefined, coin: () => boolean): Rational {
  const lo = q.floor();
  const hi = q.ceil();
  if (lo.eq(hi)) return lo;
  switch (dir) {
    case 'down':
      return lo;
    case 'up':
      return hi;
    case 'zero':
      return q.num < 0n ? hi : lo;
    case 'nearest': {
      const c = q.sub(lo).compare(Rational.of(1, 2));
      return c < 0 ? lo : c > 0 ? hi : coin() ? lo : hi;
    }
    default:
      return coin() ? lo : hi;
  }
}

/** Where a concrete run was observed, as the analyzer labels its points. */
export type PointKind = 'before' | 'head' | 'end' | 'summary';

/** The key of a program point: procedure (or '' for the main program), position, kind. */
export function pointKey(procedure: string | null, line: number, column: number, kind: PointKind): string {
  return `${procedure ?? ''}|${line}:${column}|${kind}`;
}

/** What concrete runs saw: the states at each point, the assertions that failed (by position). */
export interface Observations {
  readonly states: Map<string, State[]>;
  /** How many states each point saw (its `states` keep a sample of them). */
  readonly counts: Map<string, number>;
  readonly failed: Set<string>;
}

/** States kept per point. */
const KEEP = 400;

/** No observations yet. */
export function observations(): Observations {
  return { states: new Map(), counts: new Map(), failed: new Set() };
}

class Stop extends Error {}
class Return {
  constructor(readonly value: Rational | null) {}
}

/** A deterministic random stream in [0, 1) (mulberry32). */
export function random(seed: number): () => number {
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
 * Runs a program of the analyzer's language concretely on random choices (inputs `x = [a, b]`,
 * `?`, array contents, variables read before any assignment), recording the state at every point
 * the analyzer reports. A run stops at a failed assertion (recorded), a false `assume`, an access
 * out of bounds, or past `steps` statements or `depth` nested calls — every state recorded before
 * is a state of a real execution. Returns the position (`line:column`) of the assertion that
 * failed, if one did; `trace` receives every state of the run in order.
 */
export function runConcrete(
  program: Program,
  rand: () => number,
  observed: Observations,
  steps = 3000,
  depth = 200,
  trace?: [string, State][],
): string | null {
  let failure: string | null = null;
  const procs = new Map(program.procedures.map((p) => [p.name, p]));
  let budget = steps;
  const pickInt = (lo: bigint, hi: bigint) => lo + BigInt(Math.floor(rand() * Number(hi - lo + 1n)));
  const pick = (lo: bigint, hi: bigint) => Rational.of(pickInt(lo, hi));
  /** A random value of the type: an integer, or for a real a multiple of 1/4 or 1/3 within. */
  const pickOf = (real: boolean, lo: Rational, hi: Rational): Rational | null => {
    if (!real) {
      const l = lo.ceil().num;
      const h = hi.floor().num;
      return h < l ? null : pick(l, h);
    }
    const den = rand() < 0.5 ? 4n : 3n;
    const l = lo.mul(Rational.of(den)).ceil().num;
    const h = hi.mul(Rational.of(den)).floor().num;
    return h < l ? null : Rational.of(pickInt(l, h), den);
  };
  const coin = () => rand() < 0.5;
  // at most KEEP states a point, a uniform sample of those seen (reservoir), so long runs stay cheap
  const record = (key: string, vars: State) => {
    trace?.push([key, new Map(vars)]);
    let list = observed.states.get(key);
    if (!list) {
      list = [];
      observed.states.set(key, list);
    }
    const seen = (observed.counts.get(key) ?? 0) + 1;
    observed.counts.set(key, seen);
    if (list.length < KEEP) list.push(new Map(vars));
    else if (rand() < KEEP / seen) list[Math.floor(rand() * KEEP)] = new Map(vars);
  };

  const exec = (proc: string | null, vars: State, level: number) => {
    const p = proc === null ? null : (procs.get(proc) ?? null);
    const reals = realVars(p ? p.body : program.body, p);
    const someValue = (name: string) =>
      pickOf(reals.has(name), Rational.of(-30), Rational.of(30)) as Rational;
    const read = (name: string): Rational => {
      let v = vars.get(name);
      if (v === undefined) {
        v = someValue(name);
        vars.set(name, v);
      }
      return v;
    };
    /** C's conversion to an integer variable: towards zero. */
    const store = (name: string, v: Rational) =>
      vars.set(name, reals.has(name) ? v : roundTo(v, 'zero', coin));
    const index = (array: string, e: Expr): void => {
      const i = value(e);
      if (i.num < 0n || !i.lt(read(`${array}.length`))) throw new Stop();
    };
    const value = (e: Expr): Rational => {
      switch (e.kind) {
        case 'num':
        case 'decimal':
          return toRational(e.value);
        case 'var':
          return read(e.name);
        case 'unknown':
          return pick(-30n, 30n);
        case 'index':
          index(e.array, e.index);
          return pick(-30n, 30n);
        case 'neg':
          return value(e.arg).neg();
        case 'bin': {
          const l = value(e.left);
          const r = value(e.right);
          if (e.op === '+') return l.add(r);
          if (e.op === '-') return l.sub(r);
          if (e.op === '*') return l.mul(r);
          if (r.num === 0n) {
            // A division by zero fails the division's check and ends the run.
            observed.failed.add(`${e.pos.line}:${e.pos.column}`);
            throw new Stop();
          }
          // written rounding, else C's on integers (towards zero), else exact
          const real = isReal(e, reals);
          const dir = e.round ? e.round.dir : real ? undefined : 'zero';
          const q = l.div(r);
          const exact = e.op === '/' ? q : l.sub(r.mul(roundTo(q, 'zero', coin)));
          return (e.round ? e.round.type === 'real' : real) ? exact : roundTo(exact, dir, coin);
        }
      }
    };
    const holds = (c: Cond): boolean => {
      switch (c.kind) {
        case 'const':
          return c.value;
        case 'unknown':
          return rand() < 0.5;
        case 'and':
          return holds(c.left) && holds(c.right);
        case 'or':
          return holds(c.left) || holds(c.right);
        case 'not':
          return !holds(c.arg);
        case 'rel': {
          const d = value(c.left).compare(value(c.right));
          const ops = { '<': d < 0, '<=': d <= 0, '>': d > 0, '>=': d >= 0, '==': d === 0, '!=': d !== 0 };
          return ops[c.op];
        }
      }
    };
    const block = (ss: readonly Stmt[]) => {
      for (const s of ss) stmt(s);
    };
    const stmt = (s: Stmt): void => {
      if (--budget < 0) throw new Stop();
      if (s.kind !== 'while') record(pointKey(proc, s.pos.line, s.pos.column, 'before'), vars);
      switch (s.kind) {
        case 'var':
        case 'skip':
          return;
        case 'array':
          store(`${s.name}.length`, value(s.length));
          return;
        case 'assign':
          store(s.target, value(s.value));
          return;
        case 'havoc': {
          const lo = s.lo ?? (s.hi ?? Rational.ZERO).sub(Rational.of(50));
          const hi = s.hi ?? lo.add(Rational.of(50));
          const near = lo.add(Rational.of(8));
          // half the time near the low end, so that loops over the input also finish
          const v = pickOf(reals.has(s.target), lo, rand() < 0.5 && near.lt(hi) ? near : hi);
          if (v === null) throw new Stop(); // no value of the type in the range
          vars.set(s.target, v);
          return;
        }
        case 'store':
          index(s.array, s.index);
          value(s.value);
          return;
        case 'if':
          block(holds(s.cond) ? s.then : s.else);
          return;
        case 'while':
          for (;;) {
            if (--budget < 0) throw new Stop();
            record(pointKey(proc, s.pos.line, s.pos.column, 'head'), vars);
            if (!holds(s.cond)) return;
            block(s.body);
          }
        case 'assume':
          if (!holds(s.cond)) throw new Stop();
          return;
        case 'assert':
          if (!holds(s.cond)) {
            failure = `${s.pos.line}:${s.pos.column}`;
            observed.failed.add(failure);
            throw new Stop();
          }
          return;
        case 'return':
          throw new Return(s.value ? value(s.value) : null);
        case 'call': {
          const callee = procs.get(s.proc);
          if (!callee || level >= depth) throw new Stop();
          const args = s.args.map(value);
          const frame: State = new Map();
          callee.params.forEach((q, i) => {
            // an integer parameter converts its argument as an assignment does
            const a =
              callee.paramTypes[i] === 'real'
                ? (args[i] as Rational)
                : roundTo(args[i] as Rational, 'zero', coin);
            frame.set(q, a);
            frame.set(`${q}@in`, a);
          });
          let ret: Rational | null = null;
          try {
            exec(callee.name, frame, level + 1);
          } catch (r) {
            if (!(r instanceof Return)) throw r;
            ret = r.value;
          }
          frame.set('@ret', ret ?? pick(-30n, 30n));
          record(pointKey(callee.name, callee.pos.line, callee.pos.column, 'summary'), frame);
          if (s.target !== null) store(s.target, frame.get('@ret') as Rational);
          return;
        }
      }
    };
    block(proc === null ? program.body : (procs.get(proc)?.body ?? []));
  };

  const main: State = new Map();
  try {
    exec(null, main, 0);
    const last = program.body.at(-1);
    record(pointKey(null, last ? last.pos.line + 1 : 1, 1, 'end'), main);
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
  return failure;
}

function kindOf(p: ProgramPoint): PointKind {
  const label = p.procedure ? p.label.slice(`in ${p.procedure}: `.length) : p.label;
  if (label.startsWith('before ')) return 'before';
  if (label.startsWith('loop head ')) return 'head';
  if (label.startsWith('summary of ')) return 'summary';
  return 'end';
}

/** Every concrete state seen at a point satisfies its invariant; proved checks never fail. Returns the constraints checked. */
export function checkSound(r: AnalysisResult, seen: Observations): number {
  const names = new Map<string | null, readonly string[]>([[null, r.variables]]);
  for (const p of r.procedures) names.set(p.name, p.variables);
  const points = new Map(
    r.points.map((p) => [pointKey(p.procedure, p.pos.line, p.pos.column, kindOf(p)), p]),
  );
  let checked = 0;
  for (const [key, states] of seen.states) {
    const point = points.get(key);
    if (!point) throw new Error(`a concrete run reached ${key}, where the analysis reports nothing`);
    if (point.constraints === null) throw new Error(`${key} is reachable but the analysis says ⊥`);
    const vars = names.get(point.procedure) as readonly string[];
    for (const state of states) {
      for (const c of point.constraints) {
        if (!satisfies(state, vars, c)) {
          const at = Object.fromEntries([...state].map(([k, v]) => [k, `${v}`]));
          throw new Error(`${key}: ${JSON.stringify(at)} violates ${point.invariant}`);
        }
        checked++;
      }
    }
  }
  for (const a of r.assertions) {
    if (a.proved && seen.failed.has(`${a.pos.line}:${a.pos.column}`))
      throw new Error(`proved ${a.text} at ${a.pos.line} fails concretely`);
  }
  return checked;
}
