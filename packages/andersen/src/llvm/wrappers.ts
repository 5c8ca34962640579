import type { IrFunction, IrInstruction, IrModule, IrValue } from './ir';
import { directCallee, stripSigil } from './values';

/** C library allocators whose result is always a new block (not `realloc`, which may return its argument). */
const FRESH_ALLOCATORS = new Set([
  'malloc',
  'calloc',
  'valloc',
  'pvalloc',
  'aligned_alloc',
  'memalign',
  'strdup',
  'strndup',
  '_Znwm',
  '_Znam',
  '_Znwj',
  '_Znaj',
]);

/** Calls a fresh block may be given inside a wrapper: they keep no pointer to it. */
const HARMLESS_CALLS = /^@llvm\.(memset|lifetime|dbg|assume|experimental\.noalias)|^@(memset|free)$/;

/**
 * The module's allocation wrappers: defined functions that return only new blocks (of a C
 * library allocator, of another wrapper, or of an indirect call whose callees that return
 * anything are all wrappers) or null, and keep no pointer to them — a block is only tested,
 * offset, written with non-pointer values, cleared and returned (`zcalloc`, `BrotliDefaultAllocFunc`,
 * `sqlite3MemMalloc`). Each call site of such a function may then get a heap object of its own:
 * nothing but the caller ever sees the block.
 *
 * @param callees the functions an indirect call site (caller, line in the `.ll`) reaches, from a
 *   solved extraction; undefined for a direct call.
 * @example
 * ```ts
 * const module = parseLlvmModule(text, 'zlib.ll');
 * findAllocationWrappers(module, () => undefined); // Set { '@zcalloc' }
 * ```
 */
export function findAllocationWrappers(
  module: IrModule,
  callees: (caller: string, irLine: number) => readonly string[] | undefined,
): Set<string> {
  const wrappers = new Set<string>();
  const defined = module.functions.filter((f) => !f.isDeclaration && f.type.result.kind === 'ptr');
  const returnsPointer = new Set(
    module.functions.filter((f) => f.type.result.kind === 'ptr').map((f) => f.name),
  );
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of defined) {
      if (wrappers.has(f.name) || !returnsOnlyFreshBlocks(f, wrappers, returnsPointer, callees)) continue;
      wrappers.add(f.name);
      changed = true;
    }
  }
  return wrappers;
}

function returnsOnlyFreshBlocks(
  f: IrFunction,
  wrappers: ReadonlySet<string>,
  returnsPointer: ReadonlySet<string>,
  callees: (caller: string, irLine: number) => readonly string[] | undefined,
): boolean {
  const fresh = new Set<string>();
  const isFreshCall = (i: IrInstruction & { op: 'call' }): boolean => {
    const direct = directCallee(i.callee);
    if (direct !== undefined) return FRESH_ALLOCATORS.has(stripSigil(direct)) || wrappers.has(direct);
    const reached = callees(f.name, i.irLine);
    // Functions that return no pointer add nothing to the result (`free` beside `alloc` in a table).
    const returning = reached?.filter((name) => returnsPointer.has(name) || name === '<unknown>') ?? [];
    return returning.length > 0 && returning.every((name) => wrappers.has(name));
  };
  for (const i of f.instructions)
    if (i.op === 'call' && i.result !== undefined && i.resultType.kind === 'ptr' && isFreshCall(i))
      fresh.add(i.result);
  if (fresh.size === 0) return false;
  // Values derived from the blocks: casts, offsets, and phis and selects of blocks and nulls.
  const isFresh = (value: IrValue): boolean => value.kind === 'local' && fresh.has(value.name);
  const isNull = (value: IrValue): boolean =>
    value.kind === 'empty' || (value.kind === 'int' && value.value === 0);
  for (let grew = true; grew; ) {
    grew = false;
    for (const i of f.instructions) {
      if (!('result' in i) || i.result === undefined || fresh.has(i.result)) continue;
      const derived =
        (i.op === 'cast' && isFresh(i.operand.value)) ||
        (i.op === 'getelementptr' && isFresh(i.base.value)) ||
        (i.op === 'phi' && i.incoming.some(isFresh) && i.incoming.every((v) => isFresh(v) || isNull(v))) ||
        (i.op === 'select' &&
          i.choices.some((c) => isFresh(c.value)) &&
          i.choices.every((c) => isFresh(c.value) || isNull(c.value)));
      if (derived) {
        fresh.add(i.result);
        grew = true;
      }
    }
  }
  return f.instructions.every((i) => keepsNoPointer(i, isFresh, isNull));
}

/** Whether an instruction keeps no pointer to a block (and, a `ret`, returns only blocks or null). */
function keepsNoPointer(
  i: IrInstruction,
  isFresh: (value: IrValue) => boolean,
  isNull: (value: IrValue) => boolean,
): boolean {
  switch (i.op) {
    case 'ret':
      return i.value === undefined || isFresh(i.value.value) || isNull(i.value.value);
    case 'store':
      // Storing a number through a block is fine; storing a block, or a pointer into one, is not.
      if (isFresh(i.value.value)) return false;
      return !isFresh(i.pointer.value) || i.value.type.kind === 'int' || i.value.type.kind === 'float';
    case 'other':
      // Operands the reader does not keep: only instructions with no pointer result are safe.
      return i.type === undefined;
    case 'va_arg':
      return false;
    case 'call': {
      if (
        !i.args.some((a) => isFresh(a.value) || (a.value.kind === 'opaque' && a.value.wrapped !== undefined))
      )
        return true;
      const direct = directCallee(i.callee);
      return direct !== undefined && HARMLESS_CALLS.test(direct);
    }
    case 'phi':
      return !i.incoming.some(isFresh) || i.incoming.every((v) => isFresh(v) || isNull(v));
    case 'select':
      return (
        !i.choices.some((c) => isFresh(c.value)) ||
        i.choices.every((c) => isFresh(c.value) || isNull(c.value))
      );
    case 'insertvalue':
      return !isFresh(i.aggregate.value) && !isFresh(i.element.value);
    case 'atomic':
      return !isFresh(i.stored.value);
    case 'cast':
      // A block turned into an integer may come back as a pointer elsewhere.
      return i.name !== 'ptrtoint' || !isFresh(i.operand.value);
    default:
      return true;
  }
}
