import type { Cond, Expr, Program, Stmt } from '../src/index';

/** Where a concrete run was observed, as the analyzer labels its points. */
export type PointKind = 'before' | 'head' | 'end' | 'summary';

/** The key of a program point: procedure (or '' for the main program), position, kind. */
export function pointKey(procedure: string | null, line: number, column: number, kind: PointKind): string {
  return `${procedure ?? ''}|${line}:${column}|${kind}`;
}

/** What concrete runs saw: the states at each point, the assertions that failed (by position). */
export interface Observations {
  readonly states: Map<string, Map<string, bigint>[]>;
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
  constructor(readonly value: bigint | null) {}
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
  trace?: [string, Map<string, bigint>][],
): string | null {
  let failure: string | null = null;
  const procs = new Map(program.procedures.map((p) => [p.name, p]));
  let budget = steps;
  const pick = (lo: bigint, hi: bigint) => lo + BigInt(Math.floor(rand() * Number(hi - lo + 1n)));
  // at most KEEP states a point, a uniform sample of those seen (reservoir), so long runs stay cheap
  const record = (key: string, vars: Map<string, bigint>) => {
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

  const exec = (proc: string | null, vars: Map<string, bigint>, level: number) => {
    const read = (name: string): bigint => {
      let v = vars.get(name);
      if (v === undefined) {
        v = pick(-30n, 30n);
        vars.set(name, v);
      }
      return v;
    };
    const index = (array: string, e: Expr): void => {
      const i = value(e);
      if (i < 0n || i >= read(`${array}.length`)) throw new Stop();
    };
    const value = (e: Expr): bigint => {
      switch (e.kind) {
        case 'num':
          return e.value;
        case 'var':
          return read(e.name);
        case 'unknown':
          return pick(-30n, 30n);
        case 'index':
          index(e.array, e.index);
          return pick(-30n, 30n);
        case 'neg':
          return -value(e.arg);
        case 'bin': {
          const l = value(e.left);
          const r = value(e.right);
          return e.op === '+' ? l + r : e.op === '-' ? l - r : l * r;
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
          const l = value(c.left);
          const r = value(c.right);
          const ops = { '<': l < r, '<=': l <= r, '>': l > r, '>=': l >= r, '==': l === r, '!=': l !== r };
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
          vars.set(`${s.name}.length`, value(s.length));
          return;
        case 'assign':
          vars.set(s.target, value(s.value));
          return;
        case 'havoc': {
          const lo = s.lo ?? (s.hi ?? 0n) - 50n;
          const hi = s.hi ?? lo + 50n;
          if (hi < lo) throw new Stop();
          // half the time near the low end, so that loops over the input also finish
          vars.set(s.target, rand() < 0.5 ? pick(lo, hi < lo + 8n ? hi : lo + 8n) : pick(lo, hi));
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
          const p = procs.get(s.proc);
          if (!p || level >= depth) throw new Stop();
          const args = s.args.map(value);
          const frame = new Map<string, bigint>();
          p.params.forEach((q, i) => {
            frame.set(q, args[i] as bigint);
            frame.set(`${q}@in`, args[i] as bigint);
          });
          let ret: bigint | null = null;
          try {
            exec(p.name, frame, level + 1);
          } catch (r) {
            if (!(r instanceof Return)) throw r;
            ret = r.value;
          }
          frame.set('@ret', ret ?? pick(-30n, 30n));
          record(pointKey(p.name, p.pos.line, p.pos.column, 'summary'), frame);
          if (s.target !== null) vars.set(s.target, frame.get('@ret') as bigint);
          return;
        }
      }
    };
    block(proc === null ? program.body : (procs.get(proc)?.body ?? []));
  };

  const main = new Map<string, bigint>();
  try {
    exec(null, main, 0);
    const last = program.body.at(-1);
    record(pointKey(null, last ? last.pos.line + 1 : 1, 1, 'end'), main);
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
  return failure;
}
