/**
 * The backward mode: from each assertion of the main program, the states that may lead to its
 * failure, by substitution (APRON's backward assignment) through the statements in reverse —
 * intersected at every point with the forward invariant there, so the result is the states that
 * are reachable and may fail the assertion. Sound: every state of an execution that fails the
 * assertion lies in the backward invariant at each point it passes (tested by concrete runs).
 * @module
 */
import { substitute } from '../dbm/apron/assign';
import type { LinearExpr } from '../dbm/constraints';
import type { Octagon, WideningOptions } from '../dbm/octagon';
import type { Rational } from '../numbers/rational';
import type { Cond, Stmt } from './parse';

type Oct = Octagon<unknown>;

/** What the backward walk needs from the forward analysis of the same program. */
export interface ForwardFacts {
  /** The forward invariant before a statement (at the head of a loop); absent where unreached. */
  before(st: Stmt): Oct | undefined;
  guard(c: Cond, s: Oct): Promise<Oct>;
  /**
   * The linear form of an assignment's value over the variable indices: exact where the value is
   * linear, else an interval linear form valid on the forward states before it; null where none.
   */
  linear(st: Stmt & { kind: 'assign' | 'array' }): LinearExpr | null;
  /** The index of a variable (an array's length for `name.length`). */
  index(name: string): number;
  closed(o: Oct): Promise<Oct>;
  join(a: Oct, b: Oct): Promise<Oct>;
  top(): Oct;
  bottom(): Oct;
  readonly thresholds: readonly Rational[];
  readonly widening: WideningOptions;
  readonly delay: number;
}

/**
 * The backward invariants of the failure of `target` (an `assert` statement of `body`): for each
 * statement (loop head for `while`) the states before it that may fail the assertion, and those
 * at the start of the program.
 */
export async function backwardFrom(
  body: readonly Stmt[],
  target: Stmt,
  facts: ForwardFacts,
): Promise<{ entry: Oct; points: Map<Stmt, Oct> }> {
  // a loop's body is walked once per iteration: its last walk (from the fixpoint) stays
  const points = new Map<Stmt, Oct>();
  const meetForward = async (st: Stmt, q: Oct): Promise<Oct> => {
    const f = facts.before(st);
    return facts.closed(f ? q.meet(f) : facts.bottom());
  };
  const block = async (ss: readonly Stmt[], q0: Oct): Promise<Oct> => {
    let q = q0;
    for (let i = ss.length - 1; i >= 0; i--) q = await stmt(ss[i] as Stmt, q);
    return q;
  };
  const forget = (q: Oct, name: string) => q.forget([facts.index(name)]);
  const stmt = async (st: Stmt, q0: Oct): Promise<Oct> => {
    const q = await facts.closed(q0);
    let pre: Oct;
    switch (st.kind) {
      case 'var':
      case 'skip':
      case 'store': // a store only stops the executions that access out of bounds
        pre = q;
        break;
      case 'array':
      case 'assign': {
        const x = facts.index(st.kind === 'array' ? `${st.name}.length` : st.target);
        const e = facts.linear(st);
        pre = e ? substitute(q, [x], [e]) : q.forget([x]);
        break;
      }
      case 'havoc': {
        const x = facts.index(st.target);
        pre = q;
        if (st.hi !== null) pre = pre.guard({ i: x, si: 1, c: st.hi });
        if (st.lo !== null) pre = pre.guard({ i: x, si: -1, c: st.lo.neg() });
        pre = (await facts.closed(pre)).forget([x]);
        break;
      }
      case 'call':
        pre = st.target === null ? q : forget(q, st.target);
        break;
      case 'return':
        pre = facts.bottom();
        break;
      case 'assume':
        pre = await facts.guard(st.cond, q);
        break;
      case 'assert': {
        pre = await facts.guard(st.cond, q);
        if (st === target)
          pre = await facts.join(pre, await facts.guard({ kind: 'not', arg: st.cond }, facts.top()));
        break;
      }
      case 'if': {
        const a = await facts.guard(st.cond, await block(st.then, q));
        const b = await facts.guard({ kind: 'not', arg: st.cond }, await block(st.else, q));
        pre = await facts.join(a, b);
        break;
      }
      case 'while': {
        // X = (¬c ⊓ q) ⊔ (c ⊓ B(body, X)), from below, joined then widened
        const exit = await facts.guard({ kind: 'not', arg: st.cond }, q);
        let x = await meetForward(st, exit);
        for (let iter = 0; ; iter++) {
          const around = await facts.guard(st.cond, await block(st.body, x));
          const next = await meetForward(st, await facts.join(exit, around));
          if (next.includedIn(x)) break;
          const grown = await facts.closed(await facts.join(x, next));
          x = iter < facts.delay ? grown : x.widen(grown, facts.thresholds, facts.widening);
          if (iter > 1000) throw new Error(`no backward fixpoint at ${st.pos.line}:${st.pos.column}`);
        }
        x = await facts.closed(x);
        // the points of the body, from the loop head's invariant
        await block(st.body, x);
        points.set(st, x);
        return x;
      }
    }
    const out = await meetForward(st, pre);
    points.set(st, out);
    return out;
  };
  const entry = await block(body, facts.bottom());
  return { entry, points };
}
