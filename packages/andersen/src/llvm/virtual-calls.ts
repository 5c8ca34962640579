import type { VirtualCall } from './constructed-vtables';
import { type VirtualCallSlot, virtualCallSlots } from './cxx';
import type { ExtractOptions, Refinement, TypeTest } from './extract';
import type { IrFunction, IrInstruction, IrModule } from './ir';
import { isVtable } from './layout';
import { LibraryCalls } from './library-calls';
import { directCallee, type GlobalLayout } from './values';

/**
 * The virtual calls of a module as the extraction reads them: type tests and the vtables they
 * allow (`!type` metadata), the virtual calls without one ({@link virtualCallSlots}) and, in a
 * second extraction, the bounds a first solve allows (`Refinement`).
 */
export abstract class VirtualCallReader extends LibraryCalls {
  readonly typeTests: TypeTest[] = [];
  /** This function's type-tested vtable pointers: local name → type identifier. */
  readonly testedVtables = new Map<string, string>();
  /** This function's virtual calls (see {@link virtualCallSlots}) and their vtable pointers. */
  functionVirtualCalls = new Map<IrInstruction, VirtualCallSlot>();
  virtualVtableLoads = new Set<string>();
  /** With bounded virtual calls: what each function's body returns, which unknown code cannot write. */
  readonly bodyReturns = new Map<string, number>();
  readonly virtualCalls: VirtualCall[] = [];
  /** Whether the module defines a vtable (only then are virtual calls looked for). */
  readonly hasVtables: boolean;
  /** Compatible vtable locations by type identifier, from the globals' `!type` metadata. */
  compatibleVtables: Map<string, { global: string; object: number; field: number }[]> | undefined;
  readonly readOnlyVtables = new Map<string, number>();
  readonly wholeProgramVtables: boolean;
  readonly refinement: Refinement;

  constructor(module: IrModule, options: ExtractOptions, refinement: Refinement) {
    super(module, options);
    this.wholeProgramVtables = options.wholeProgramVtables === true;
    this.refinement = refinement;
    this.hasVtables = module.globals.some((g) => isVtable(g.name) && g.initializer !== undefined);
  }

  /**
   * `llvm.type.test(ptr %vtable, metadata !"_ZTS5Shape")` on a loaded vtable pointer (and
   * `llvm.public.type.test` with {@link ExtractOptions.wholeProgramVtables}): remembered for the
   * load of `%vtable`.
   */
  readTypeTest(i: IrInstruction & { op: 'call' }): void {
    const callee = directCallee(i.callee);
    if (callee !== '@llvm.type.test' && !(callee === '@llvm.public.type.test' && this.wholeProgramVtables))
      return;
    const vtable = i.args[0]?.value;
    const type = i.args[1]?.value;
    if (vtable?.kind !== 'local' || type?.kind !== 'opaque' || type.id === undefined) return;
    this.testedVtables.set(vtable.name, type.id);
  }

  /**
   * The load of a type-tested vtable pointer: recorded as a {@link TypeTest}; for a pointer in
   * {@link hierarchyVtables}, its set is the compatible vtables instead of what the object holds
   * (true: the load's constraints are not to be emitted).
   */
  loadTypeTestedVtable(f: IrFunction, result: string): boolean {
    const type = this.testedVtables.get(result);
    if (type === undefined) return false;
    const compatible = this.compatibleVtablesOf(type).map(({ object, field }) => object + field);
    const vtable = `${result} in ${f.name}`;
    const node = this.localNode(result);
    this.typeTests.push({ vtable, node, type, compatible });
    if (!this.refinement.hierarchyVtables.has(vtable) || compatible.length === 0) return false;
    for (const { global, field } of this.compatibleVtablesOf(type))
      this.offsetInto(node, this.addressOf(this.readOnlyVtable(global)), field);
    return true;
  }

  /**
   * The vtable-pointer load of a virtual call without a type test: recorded as a
   * {@link VirtualCall}; when the refinement bounds it, its set is the vtables the program stores
   * into its objects (read-only copies) instead of what they hold (true: no load is emitted).
   */
  loadVirtualCallVtable(f: IrFunction, i: IrInstruction & { op: 'load' }): boolean {
    const object = this.nodeOf(i.pointer);
    if (object === undefined) return false;
    const vtable = `${i.result} in ${f.name}`;
    const node = this.localNode(i.result);
    this.virtualCalls.push({ vtable, node, object });
    const bound = this.refinement.constructedVtables.get(vtable);
    if (bound === undefined) return false;
    for (const { global, field } of bound)
      this.offsetInto(node, this.addressOf(this.readOnlyVtable(global)), field);
    return true;
  }

  /**
   * The functions a virtual call whose vtable pointer the refinement bounds may reach: each
   * bounded vtable's slot, read from its initializer (undefined when one is not a function the
   * module defines: the call then reads the return field of what the pointer holds). Its result
   * is what their bodies return ({@link bodyReturn}), not their return fields, which unknown code
   * is taken to write once a function escapes to it.
   */
  boundedCallees(f: IrFunction, i: IrInstruction): string[] | undefined {
    const call = this.functionVirtualCalls.get(i);
    const bound = call && this.refinement.constructedVtables.get(`${call.vtable} in ${f.name}`);
    if (call === undefined || bound === undefined) return undefined;
    const callees = new Set<string>();
    for (const { global, field } of bound) {
      const byte = field * 8 + call.byte;
      const leaf = this.globalLayouts.get(global)?.leaves.find((l) => l.byte === byte);
      let value = leaf?.value;
      while (value?.kind === 'cast') value = value.operand.value;
      const callee = value?.kind === 'global' ? this.functionsByName.get(value.name) : undefined;
      if (callee === undefined || callee.isDeclaration) return undefined;
      callees.add(callee.name);
    }
    return [...callees];
  }

  /** A variable for what function `name`'s `ret` instructions return. */
  bodyReturn(name: string): number {
    let node = this.bodyReturns.get(name);
    if (node === undefined) {
      node = this.b.variable(`<return of ${name}>`);
      this.bodyReturns.set(name, node);
    }
    return node;
  }

  /**
   * A copy of a vtable that only bounded vtable pointers reach: its slots are the initializer's,
   * which the program cannot change (a vtable is constant), while the vtable itself, once an
   * object holding it escapes, is among what unknown code is taken to overwrite.
   */
  readOnlyVtable(global: string): number {
    let copy = this.readOnlyVtables.get(global);
    if (copy === undefined) {
      const label = `${global} (read-only)`;
      copy = this.b.object(label, { fields: (this.globalLayouts.get(global) as GlobalLayout).fields });
      this.objectNames.set(copy, label);
      this.initialize(global, copy);
      this.readOnlyVtables.set(global, copy);
    }
    return copy;
  }

  /** The vtables compatible with a type identifier: each global object and the field of the tested byte. */
  compatibleVtablesOf(type: string): readonly { global: string; object: number; field: number }[] {
    if (this.compatibleVtables === undefined) {
      this.compatibleVtables = new Map();
      for (const g of this.module.globals) {
        const object = this.globalObjects.get(g.name);
        if (object === undefined) continue;
        for (const { byte, type: id } of g.vtableTypes ?? []) {
          const list = this.compatibleVtables.get(id) ?? [];
          list.push({ global: g.name, object, field: Math.floor(byte / 8) });
          this.compatibleVtables.set(id, list);
        }
      }
    }
    return this.compatibleVtables.get(type) ?? [];
  }
}
