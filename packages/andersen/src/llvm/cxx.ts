import type { IrFunction, IrInstruction, IrModule, IrValue } from './ir';
import { isVtable, type TypeLayout } from './layout';

/**
 * A C++ constructor or destructor (Itanium ABI: `…C1E…`, `…C2E…`, `…D0E…`, …) whose body makes no
 * call that could run a virtual function of the object under construction: no indirect call, no
 * call of a defined function other than another structor, no call of an unknown function with a
 * pointer. In such a body the vtable pointers it stores matter only when no caller overwrites
 * them: a derived class's constructor stores its own vtable over its bases' (so in a
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
  for (const f of module.functions) {
    if (f.isDeclaration || !STRUCTOR_NAME.test(f.name)) continue;
    const structor = readStructor(f, layout, (callee, args) => {
      const target = functions.get(callee);
      if (target !== undefined && !target.isDeclaration) return STRUCTOR_NAME.test(callee);
      return knownExternal(callee) || args === 0;
    });
    if (structor !== undefined) structors.set(f.name, structor);
  }
  return structors;
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
