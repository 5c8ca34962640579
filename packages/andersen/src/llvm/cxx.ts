import type { IrFunction, IrInstruction, IrModule, IrValue } from './ir';
import { isVtable, type TypeLayout } from './layout';

/**
 * A C++ constructor or destructor (Itanium ABI: `…C1E…`, `…C2E…`, `…D0E…`, …) whose body makes no
 * call that could run a virtual function of the object under construction: no indirect call, no
 * call of a defined function other than another structor or a function that (at any depth) makes
 * none of these calls, no call of an unknown function with a pointer. In such a body the vtable
 * pointers it stores matter only when no caller overwrites them: a derived class's constructor stores its own vtable over its bases' (so in a
 * flow-insensitive analysis every object would otherwise hold every base's vtable and each
 * virtual call would reach the bases' overrides too), and a destructor's stores are seen by no
 * virtual call at all.
 */
export interface Structor {
  readonly kind: 'ctor' | 'dtor';
  /** Values derived from `this` by constant byte offsets (`this` itself at 0). */
  readonly thisBytes: ReadonlyMap<string, number>;
  /** Of those, the ones whose flattened field offset the IR shows (struct GEPs from `this`). */
  readonly thisFields: ReadonlyMap<string, number>;
  /** The stores of a vtable address into `this + byte`, by instruction. */
  readonly vptrStores: ReadonlyMap<IrInstruction, number>;
  /** The bytes of `this` this body stores a vtable address into. */
  readonly vptrBytes: ReadonlySet<number>;
}

const STRUCTOR_NAME = /^@"?_ZN.*[^\d](C[123]|D[012])E/;

/**
 * The module's constructors and destructors whose vtable stores may be treated as above.
 *
 * @param knownExternal whether a declared function is known to call nothing back (`operator new`,
 *   `memcpy`, …).
 */
export function findStructors(
  module: IrModule,
  layout: TypeLayout,
  knownExternal: (name: string) => boolean,
): Map<string, Structor> {
  const functions = new Map(module.functions.map((f) => [f.name, f]));
  const structors = new Map<string, Structor>();
  const calls = callsNoVirtualFunction(functions, layout, knownExternal);
  for (const f of module.functions) {
    if (f.isDeclaration || !STRUCTOR_NAME.test(f.name)) continue;
    const structor = readStructor(f, layout, (callee, args) => {
      const target = functions.get(callee);
      if (target !== undefined && !target.isDeclaration) return STRUCTOR_NAME.test(callee) || calls(callee);
      return knownExternal(callee) || args === 0;
    });
    if (structor !== undefined) structors.set(f.name, structor);
  }
  return structors;
}

/**
 * Whether a defined function, and every function it calls, makes no indirect call (a virtual
 * call is one), no inline assembly and no call of an unknown function with a pointer: a
 * constructor may call it (a helper that logs, counts, computes) without running a virtual
 * function of the object under construction.
 */
function callsNoVirtualFunction(
  functions: ReadonlyMap<string, IrFunction>,
  layout: TypeLayout,
  knownExternal: (name: string) => boolean,
): (name: string) => boolean {
  let harmful: Set<string> | undefined;
  const findHarmful = (): Set<string> => {
    // Functions that make such a call themselves, then every function that calls one of them.
    const found = new Set<string>();
    const callers = new Map<string, string[]>();
    for (const f of functions.values()) {
      if (f.isDeclaration) continue;
      for (const i of f.instructions) {
        if (i.op !== 'call') continue;
        const callee = i.callee.kind === 'global' ? i.callee.name : undefined;
        if (callee?.startsWith('@llvm.')) continue;
        if (callee !== undefined && functions.get(callee)?.isDeclaration === false)
          callers.set(callee, [...(callers.get(callee) ?? []), f.name]);
        else if (
          callee === undefined ||
          !(knownExternal(callee) || i.args.every((a) => !layout.carriesPointer(a.type)))
        )
          found.add(f.name);
      }
    }
    const work = [...found];
    for (let name = work.pop(); name !== undefined; name = work.pop())
      for (const caller of callers.get(name) ?? [])
        if (!found.has(caller)) {
          found.add(caller);
          work.push(caller);
        }
    return found;
  };
  return (name) => {
    harmful ??= findHarmful();
    return functions.get(name)?.isDeclaration === false && !harmful.has(name);
  };
}

function readStructor(
  f: IrFunction,
  layout: TypeLayout,
  harmlessCall: (callee: string, pointerArgs: number) => boolean,
): Structor | undefined {
  const self = f.paramNames[0];
  if (self === undefined) return undefined;
  const thisBytes = new Map<string, number>([[self, 0]]);
  const thisFields = new Map<string, number>([[self, 0]]);
  const vptrStores = new Map<IrInstruction, number>();
  const byteOf = (value: IrValue): number | undefined =>
    value.kind === 'local' ? thisBytes.get(value.name) : undefined;
  for (const i of f.instructions) {
    if (i.op === 'getelementptr') {
      const base = byteOf(i.base.value);
      const offset = layout.byteOffsetOf(i.sourceType, i.indices);
      if (base !== undefined && offset !== undefined) thisBytes.set(i.result, base + offset);
      const field = i.base.value.kind === 'local' ? thisFields.get(i.base.value.name) : undefined;
      const first = i.indices[0]?.value;
      const source = layout.resolve(i.sourceType);
      if (field !== undefined && first?.kind === 'int' && first.value === 0 && source.kind === 'struct')
        thisFields.set(i.result, field + layout.fieldOffset(i.sourceType, i.indices));
    } else if (i.op === 'cast') {
      const base = byteOf(i.operand.value);
      if (base !== undefined) thisBytes.set(i.result, base);
      const field = i.operand.value.kind === 'local' ? thisFields.get(i.operand.value.name) : undefined;
      if (field !== undefined) thisFields.set(i.result, field);
    } else if (i.op === 'store') {
      const byte = byteOf(i.pointer.value);
      if (byte !== undefined && pointsIntoVtable(i.value.value)) vptrStores.set(i, byte);
    } else if (i.op === 'call') {
      const callee = i.callee.kind === 'global' ? i.callee.name : undefined;
      if (callee === undefined) return undefined; // an indirect call or inline assembly
      if (callee.startsWith('@llvm.')) continue;
      const pointerArgs = i.args.filter((a) => layout.carriesPointer(a.type)).length;
      if (!harmlessCall(callee, pointerArgs)) return undefined;
    }
  }
  const kind = /[^\d]C[123]E/.test(f.name) ? 'ctor' : 'dtor';
  return { kind, thisBytes, thisFields, vptrStores, vptrBytes: new Set(vptrStores.values()) };
}

function pointsIntoVtable(value: IrValue): boolean {
  if (value.kind === 'global') return isVtable(value.name);
  if (value.kind === 'gep') return pointsIntoVtable(value.base.value);
  if (value.kind === 'cast') return pointsIntoVtable(value.operand.value);
  return false;
}

/** Itanium ABI name of a constructor (`…C1E…`, `…C2E…`, `…C3E…`). */
export const CONSTRUCTOR_NAME = /^@"?_ZN.*[^\d]C[123]E/;

/** A virtual call's vtable pointer (a value name) and the byte of its slot in the vtable. */
export interface VirtualCallSlot {
  readonly vtable: string;
  readonly byte: number;
}

/**
 * The virtual calls of a function, as clang emits them with or without optimization:
 * `%vtable = load ptr, ptr %obj`, a constant `getelementptr` to the slot (none for slot 0),
 * `%fn = load ptr, ptr %slot` and `call %fn(ptr %obj, …)` — the object the vtable pointer is read
 * from is the call's `this`. By call instruction: the vtable pointer's name and the slot's byte.
 *
 * @example
 * ```ts
 * virtualCallSlots(f, layout); // Map { <call %0(ptr %c)> => { vtable: '%vtable', byte: 8 } }
 * ```
 */
export function virtualCallSlots(f: IrFunction, layout: TypeLayout): Map<IrInstruction, VirtualCallSlot> {
  const loadedFrom = new Map<string, IrValue>();
  const slotGeps = new Map<string, IrInstruction & { op: 'getelementptr' }>();
  for (const i of f.instructions) {
    if (i.op === 'load') loadedFrom.set(i.result, i.pointer.value);
    else if (i.op === 'getelementptr') slotGeps.set(i.result, i);
  }
  const found = new Map<IrInstruction, VirtualCallSlot>();
  for (const i of f.instructions) {
    if (i.op !== 'call' || i.callee.kind !== 'local') continue;
    const self = i.args[0]?.value;
    const slot = loadedFrom.get(i.callee.name);
    if (self === undefined || slot?.kind !== 'local') continue;
    const gep = slotGeps.get(slot.name);
    const vtable = gep === undefined ? slot : gep.base.value;
    const byte = gep === undefined ? 0 : layout.byteOffsetOf(gep.sourceType, gep.indices);
    if (vtable.kind !== 'local' || byte === undefined || byte < 0) continue;
    const object = loadedFrom.get(vtable.name);
    if (object !== undefined && sameValue(object, self)) found.set(i, { vtable: vtable.name, byte });
  }
  return found;
}

function sameValue(a: IrValue, b: IrValue): boolean {
  return (a.kind === 'local' || a.kind === 'global') && a.kind === b.kind && a.name === (b as typeof a).name;
}
