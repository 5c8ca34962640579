import { ConstraintKind } from '../model/program';
import type { AndersenResult } from '../result/result';
import type { ExtractedModule } from './extract';
import type { IrModule } from './ir';
import { isVtable } from './layout';

/**
 * A virtual call's vtable-pointer load that no type test bounds (`cxx.ts`,
 * `virtualCallVtableLoads`): `%vtable = load ptr, ptr %obj` before `call %fn(ptr %obj, …)`.
 */
export interface VirtualCall {
  /** The vtable pointer, as a value name (`%vtable in @f`). */
  readonly vtable: string;
  /** Its node. */
  readonly node: number;
  /** The node of the object pointer it is loaded from (the call's `this`). */
  readonly object: number;
}

/** A location in a vtable: the vtable global (`@_ZTV6Circle`) and the field (slot) in it. */
export interface VtableSlot {
  readonly global: string;
  readonly field: number;
}

/**
 * For each virtual call of a solved first extraction whose vtable pointer holds more than the
 * vtables the program's own code stored into the objects it is read from, those vtables.
 *
 * C++ sets an object's vtable pointer only in its constructors and destructors: no other code
 * may change an object's dynamic type without constructing a new object there. So the vtable
 * pointer of an object the program built holds only the vtables its code stores into that field
 * (the constructors' constant stores, or a copy of another vtable pointer), never what the
 * analysis lets _unknown code_ write into an escaped object (the unknown object, other escaped
 * vtables): unknown code may read such an object and call its virtual functions, but it does not
 * construct objects in memory the program gave it. A call is bounded only when, for every object
 * field its `this` may point to:
 *
 * - the field is not in the unknown object (an object unknown code made may be of a class the
 *   module does not have: the call still reaches unknown code);
 * - the program writes into it only addresses inside vtables the module defines, and at least one;
 * - the object was not given to a constructor the module only declares (its stores are unseen).
 *
 * The front end does not follow pointers copied as integers (`load i64` then `store i64`, the
 * vector moves of `-O2`). No call is bounded in a module that copies that way memory that may hold
 * a pointer to an object a call reads a vtable pointer from (that call's `this` could miss it),
 * and a field such a copy may write into is not bounded.
 *
 * The bound is read from read-only copies of the vtables (see `readOnlyVtable` in `virtual-calls.ts`).
 *
 * @example
 * ```ts
 * const bounds = constructedVtableBounds(module, extracted, await solveAndersen(extracted.program));
 * bounds.get('%vtable in @main'); // [{ global: '@_ZTV6Circle', field: 2 }]
 * ```
 */
export function constructedVtableBounds(
  module: IrModule,
  extracted: ExtractedModule,
  result: AndersenResult,
): Map<string, readonly VtableSlot[]> {
  const bounds = new Map<string, readonly VtableSlot[]>();
  if (extracted.virtualCalls.length === 0) return bounds;
  const read = new Set<number>();
  for (const call of extracted.virtualCalls) for (const l of result.pointsTo(call.object)) read.add(l);
  if (read.size === 0) return bounds;

  const { program, objectNames, unknownObject } = extracted;
  const { objectSize, constraints: c } = program;
  const objectBase = baseLookup(extracted);
  const definedVtables = new Set(
    module.globals.filter((g) => isVtable(g.name) && g.initializer !== undefined).map((g) => g.name),
  );
  const vtableSlotOf = (location: number): VtableSlot | undefined => {
    const base = objectBase(location);
    const name = objectNames.get(base);
    return name !== undefined && definedVtables.has(name)
      ? { global: name, field: location - base }
      : undefined;
  };

  // What the program (not unknown code) writes into each field read as a vtable pointer.
  const written = new Map<number, Set<number>>();
  const tainted = new Set<number>();
  const readBases = new Map<number, number[]>();
  for (const l of read) readBases.set(objectBase(l), [...(readBases.get(objectBase(l)) ?? []), l]);
  for (const node of extracted.externallyConstructed)
    for (const o of result.pointsTo(node)) for (const l of readBases.get(objectBase(o)) ?? []) tainted.add(l);
  // Integers copied from memory to memory: a pointer to an object whose vtable pointer a call reads
  // may be lost on the way (a call's `this` could miss it: bound nothing), and a vtable pointer
  // copied into such an object is not seen (its fields are not bounded).
  for (const { from, to } of extracted.integerCopies) {
    for (const l of result.pointsTo(from))
      for (const held of result.pointsTo(l)) if (readBases.has(objectBase(held))) return bounds;
    for (const o of result.pointsTo(to)) for (const l of readBases.get(objectBase(o)) ?? []) tainted.add(l);
  }
  const inUnknown = (l: number) => l >= unknownObject.base && l < unknownObject.base + unknownObject.size;
  const write = (l: number, values: ArrayLike<number>): void => {
    if (tainted.has(l)) return;
    let set = written.get(l);
    for (let k = 0; k < values.length; k++) {
      const value = values[k] as number;
      if (inUnknown(value)) continue; // unknown code's write (see above)
      if (vtableSlotOf(value) === undefined) {
        tainted.add(l);
        return;
      }
      if (set === undefined) {
        set = new Set();
        written.set(l, set);
      }
      set.add(value);
    }
  };
  for (let i = 0; i < c.length; i++) {
    const dst = c.dst[i] as number;
    const src = c.src[i] as number;
    switch (c.kind[i]) {
      case ConstraintKind.AddressOf:
        if (read.has(dst)) write(dst, [src]);
        break;
      case ConstraintKind.Copy:
        if (read.has(dst)) write(dst, result.pointsTo(src));
        break;
      case ConstraintKind.Load:
      case ConstraintKind.Offset:
        if (read.has(dst)) tainted.add(dst);
        break;
      case ConstraintKind.Store: {
        const offset = c.offset[i] as number;
        let values: Uint32Array | undefined;
        for (const o of result.pointsTo(dst)) {
          if (offset >= (objectSize[o] as number) || !read.has(o + offset)) continue;
          values ??= result.pointsTo(src);
          write(o + offset, values);
        }
        break;
      }
    }
  }

  for (const call of extracted.virtualCalls) {
    const objects = result.pointsTo(call.object);
    if (objects.length === 0) continue;
    const slots = new Set<number>();
    let bounded = true;
    for (const l of objects) {
      const stored = written.get(l);
      if (inUnknown(l) || tainted.has(l) || stored === undefined) {
        bounded = false;
        break;
      }
      for (const slot of stored) slots.add(slot);
    }
    if (!bounded || result.pointsTo(call.node).every((location) => slots.has(location))) continue;
    bounds.set(
      call.vtable,
      [...slots].sort((a, b) => a - b).map((location) => vtableSlotOf(location) as VtableSlot),
    );
  }
  return bounds;
}

/** The base node of the object each node belongs to. */
function baseLookup(extracted: ExtractedModule): (node: number) => number {
  const { objectSize, nodeCount } = extracted.program;
  const base = new Uint32Array(nodeCount);
  for (let v = 0; v < nodeCount; v++) base[v] = v;
  for (const object of extracted.objectNames.keys()) {
    const size = objectSize[object] as number;
    for (let k = 1; k < size; k++) base[object + k] = object;
  }
  return (node) => base[node] as number;
}
