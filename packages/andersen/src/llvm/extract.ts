import type { ConstraintProgram } from '../model/program';
import { type AliasCheckKind, aliasCheckKind } from './alias-checks';
import type { VirtualCall, VtableSlot } from './constructed-vtables';
import { CONSTRUCTOR_NAME, findStructors, type Structor, virtualCallSlots } from './cxx';
import type { IrFunction, IrInstruction, IrModule, IrTypedValue } from './ir';
import { isVtable } from './layout';
import { NO_POINTER_EFFECT } from './summaries';
import { directCallee, FIRST_PARAM_FIELD, type GlobalLayout, RETURN_FIELD, stripSigil } from './values';
import { VirtualCallReader } from './virtual-calls';

/** Options of {@link extractConstraints}. */
export interface ExtractOptions {
  /**
   * Functions that return a fresh heap object at each call site, beside the C library's
   * (`malloc`, `calloc`, `realloc`, `strdup`, …): your own allocators, e.g. `['xmalloc']`.
   */
  readonly allocators?: readonly string[] | undefined;
  /**
   * Trust `llvm.public.type.test` as `llvm.type.test`: every class deriving from a class the module
   * type-tests is in the module (clang's `-fwhole-program-vtables` with whole-program visibility,
   * as `lld --lto-whole-program-visibility` assumes). Default false: only `llvm.type.test` (classes
   * of hidden LTO visibility, `-fsanitize=cfi`) bounds a virtual call by the class hierarchy.
   */
  readonly wholeProgramVtables?: boolean | undefined;
}

/**
 * A virtual call's type test (`llvm.type.test(ptr %vtable, metadata !"_ZTS5Shape")` before the
 * slot load): the vtable pointer must be one of the vtables the module's `!type` metadata makes
 * compatible with the class — the vtables of the class's subtree.
 */
export interface TypeTest {
  /** The vtable pointer, as a value name (`%vtable in @f`). */
  readonly vtable: string;
  readonly node: number;
  /** The class's type identifier as written (`!"_ZTS5Shape"`). */
  readonly type: string;
  /** The locations the vtable pointer may hold: each compatible vtable at the tested byte. */
  readonly compatible: readonly number[];
}

/** A call instruction of the module. */
export interface CallSite {
  /** Index in {@link ExtractedModule.callSites}: the id `callees()` takes. */
  readonly id: number;
  /** The calling function, as in the IR (`@main`). */
  readonly caller: string;
  /** Line in the `.ll` file. */
  readonly irLine: number;
  /** Source line from debug info, when the module has it. */
  readonly line: number | undefined;
  /** The callee's name for a direct call. */
  readonly direct: string | undefined;
  /** The node of the called pointer for an indirect call. */
  readonly pointerNode: number | undefined;
}

/** A call to an aliasing-fact function (`MAYALIAS(p, q)`, …). */
export interface AliasCheckSite {
  readonly kind: AliasCheckKind;
  /** The function that makes the check (`main`, without the `@`). */
  readonly function: string;
  readonly irLine: number;
  readonly line: number | undefined;
  /** Nodes of the two pointer arguments (undefined: a constant such as null). */
  readonly first: number | undefined;
  readonly second: number | undefined;
}

/** A source variable from debug info (`llvm.dbg.value`, `llvm.dbg.declare`, `#dbg_…` records). */
export interface SourceVariable {
  /** The function, as in the IR (`@main`). */
  readonly function: string;
  readonly name: string;
  /** The declaration's source line. */
  readonly line: number | undefined;
  /** The node of the IR value the variable is bound to. */
  readonly node: number;
  /** A `declare` binding: the node holds the variable's address, its value is what is stored there. */
  readonly indirect: boolean;
}

/** Everything {@link extractConstraints} found: the constraint program and the maps back to IR names. */
export interface ExtractedModule {
  readonly program: ConstraintProgram;
  /** Node of each pointer-valued IR value: `@g` (the address of g) and `%x in @f`. */
  readonly valueNodes: ReadonlyMap<string, number>;
  /** Every local value of the module (`%x in @f`), pointer or not: parameters and results. */
  readonly locals: ReadonlySet<string>;
  /** Name of each abstract object's base node (`@g`, `@f`, `%x in @f`, `malloc in @f at line 12`). */
  readonly objectNames: ReadonlyMap<number, string>;
  /** Functions by name → their object's base node (field 1: return value, 2…: parameters). */
  readonly functionObjects: ReadonlyMap<string, number>;
  /** The unknown object's base node and size: a set holding any of its fields may point anywhere. */
  readonly unknownObject: { readonly base: number; readonly size: number };
  readonly callSites: readonly CallSite[];
  readonly checks: readonly AliasCheckSite[];
  /** Source variables bound to pointer-holding IR values (compile with `-g`). */
  readonly sourceVariables: readonly SourceVariable[];
  /** Functions of the module, declared or defined, whose names are aliasing-fact checks (`@MAYALIAS`). */
  readonly checkFunctions: readonly string[];
  /** The type tests of virtual calls (see {@link TypeTest}). */
  readonly typeTests: readonly TypeTest[];
  /** The vtable-pointer loads of virtual calls without a type test (see {@link VirtualCall}). */
  readonly virtualCalls: readonly VirtualCall[];
  /** Nodes of what the program passes as `this` to constructors it only declares. */
  readonly externallyConstructed: readonly number[];
  /**
   * Nodes of the pointers the module copies integers as wide as a pointer from and to, memory to
   * memory (`store (load i64 p), q`, vector moves at `-O2`): pointers copied that way are not followed.
   */
  readonly integerCopies: readonly { readonly from: number; readonly to: number }[];
  /** What a first solve sharpened in this extraction (none in a first extraction). */
  readonly refinement: Refinement;
  /** Counts for reports. */
  readonly statistics: {
    readonly functions: number;
    readonly definedFunctions: number;
    readonly globals: number;
    readonly instructions: number;
    readonly heapSites: number;
    readonly indirectCalls: number;
    readonly unknownExternalCalls: number;
  };
}

/**
 * Turns an LLVM module into Andersen constraints, following the policy of the package README:
 * one abstract object per global, function, `alloca` and heap allocation site; struct fields
 * flattened (nested structs included) and arrays collapsed to one element; functions as objects
 * whose fields carry the return value and parameters, so indirect calls resolve on the fly as the
 * called pointer's set grows, in either engine; int-to-pointer casts and unknown external calls
 * through one unknown object.
 *
 * @example
 * ```ts
 * const extracted = extractConstraints(parseLlvmModule(text, 'a.ll'), { allocators: ['xmalloc'] });
 * const result = await solveAndersen(extracted.program);
 * ```
 */
export function extractConstraints(
  module: IrModule,
  options: ExtractOptions = {},
  refinement: Refinement = NO_REFINEMENT,
): ExtractedModule {
  return new Extractor(module, options, refinement).run();
}

/**
 * What a first solve of the module lets a second extraction sharpen (see `analyze.ts`): vtable
 * pointers to bound by the class hierarchy, allocation wrappers (`wrappers.ts`) whose call sites
 * get heap objects of their own, the indirect call sites (`caller irLine` → a wrapper they
 * reach) that do too, and the vtable pointers of virtual calls without a type test bounded by
 * the vtables the program stores into their objects (`constructed-vtables.ts`).
 */
export interface Refinement {
  readonly hierarchyVtables: ReadonlySet<string>;
  readonly constructedVtables: ReadonlyMap<string, readonly VtableSlot[]>;
  readonly allocationWrappers: ReadonlySet<string>;
  readonly wrapperCalls: ReadonlyMap<string, string>;
}

const NO_REFINEMENT: Refinement = {
  hierarchyVtables: new Set(),
  constructedVtables: new Map(),
  allocationWrappers: new Set(),
  wrapperCalls: new Map(),
};

class Extractor extends VirtualCallReader {
  /** The module's simple constructors and destructors (see {@link Structor}). */
  structors = new Map<string, Structor>();
  /** Calls of those constructors: the caller, what it passes as `this`, at which byte of its own `this`. */
  readonly constructorCalls = new Map<
    string,
    { caller: string; self: number | undefined; byte: number | undefined; field: number | undefined }[]
  >();
  /** `<constructor> <byte>` → the objects whose vtable pointer there the constructor sets for good. */
  readonly finalVtables = new Map<string, number>();
  readonly finalVtablesPending: [string, number, number][] = [];
  readonly sourceVariables: SourceVariable[] = [];
  readonly externallyConstructed: number[] = [];

  run(): ExtractedModule {
    const { module, b } = this;
    for (const type of module.types.values())
      this.largest = Math.max(this.largest, this.layout.flatSize(type));
    for (const g of module.globals) {
      if (g.aliasee !== undefined) continue;
      const leaves = g.initializer === undefined ? [] : this.layout.constantLeaves(g.initializer);
      const views = isVtable(g.name) ? [] : this.layout.readingViews(g.valueType, leaves);
      const fields = isVtable(g.name)
        ? Math.max(1, Math.ceil(this.layout.byteLayout(g.valueType).size / 8))
        : Math.max(...views.map((view) => this.layout.flatSize(view)));
      this.globalLayouts.set(g.name, { leaves, views, fields });
      this.largest = Math.max(this.largest, fields);
    }
    // A call through a pointer to the unknown object reads its return field and writes its
    // parameter fields: it has at least as many fields as the widest call or function.
    let callFields = 0;
    for (const f of module.functions) {
      callFields = Math.max(callFields, FIRST_PARAM_FIELD + f.type.params.length + 1);
      for (const i of f.instructions)
        if (i.op === 'alloca') this.largest = Math.max(this.largest, this.layout.flatSize(i.allocated));
        else if (i.op === 'call') callFields = Math.max(callFields, FIRST_PARAM_FIELD + i.args.length + 1);
    }
    const unknownFields = Math.max(this.largest, callFields);
    this.unknown = b.object('<unknown>', { fields: unknownFields });
    this.objectNames.set(this.unknown, '<unknown>');
    this.unknownAddress = b.variable('&<unknown>');
    this.strtokState = b.variable('<strtok>');
    this.thrown = b.variable('<thrown>');
    this.multipleInheritance = module.globals.some((g) => g.name.includes('__vmi_class_type_info'));
    b.addressOf(this.unknownAddress, this.unknown);
    // The unknown object may hold anything, itself included: every field points to it.
    for (let k = 0; k < unknownFields; k++) b.addressOf(this.unknown + k, this.unknown);

    // An indirect call stores its k-th argument into field 2 + k of whatever it calls: a
    // variadic function gets a field for each argument the widest indirect call passes, all
    // copied into its one variadic field.
    let widestIndirectCall = 0;
    for (const f of module.functions)
      for (const i of f.instructions)
        if (i.op === 'call' && directCallee(i.callee) === undefined)
          widestIndirectCall = Math.max(widestIndirectCall, i.args.length);
    for (const f of module.functions) {
      this.functionsByName.set(f.name, f);
      const params = f.type.params.length;
      const extra = f.type.varargs ? Math.max(0, widestIndirectCall - params - 1) : 0;
      const base = b.object(f.name, { fields: params + 3 + extra, function: true });
      for (let k = 1; k <= extra; k++)
        b.copy(base + FIRST_PARAM_FIELD + params, base + FIRST_PARAM_FIELD + params + k);
      this.functionObjects.set(f.name, base);
      this.objectNames.set(base, f.name);
    }
    for (const g of module.globals) {
      this.globalTypes.set(g.name, g.valueType);
      if (g.aliasee !== undefined) continue;
      const { fields } = this.globalLayouts.get(g.name) as GlobalLayout;
      const base = b.object(g.name, { fields });
      this.globalObjects.set(g.name, base);
      this.objectNames.set(base, g.name);
    }
    for (const g of module.globals) {
      if (g.aliasee !== undefined) {
        const target = this.nodeOf(g.aliasee);
        if (target !== undefined) this.valueNodes.set(g.name, target);
      }
    }
    for (const g of module.globals) {
      if (g.aliasee === undefined) this.initialize(g.name, this.globalObjects.get(g.name) as number);
    }
    for (const f of module.functions) if (f.isDeclaration) this.externalThroughPointer(f);
    this.structors = findStructors(module, this.layout, (name) => {
      const plain = stripSigil(name);
      return (
        NO_POINTER_EFFECT.has(plain) || this.allocators.has(plain) || aliasCheckKind(plain) !== undefined
      );
    });
    for (const f of module.functions) if (!f.isDeclaration) this.readFunction(f);
    this.current = undefined;
    this.finalVtableObjects();
    this.escapeAddressIntegers();
    this.escapedObjects();
    const program = b.build();
    return {
      program,
      valueNodes: this.valueNodes,
      locals: this.allLocals,
      objectNames: this.objectNames,
      functionObjects: this.functionObjects,
      unknownObject: { base: this.unknown, size: program.objectSize[this.unknown] as number },
      callSites: this.callSites,
      checks: this.checks,
      sourceVariables: this.sourceVariables,
      checkFunctions: module.functions
        .map((f) => f.name)
        .filter((name) => aliasCheckKind(stripSigil(name)) !== undefined),
      typeTests: this.typeTests,
      virtualCalls: this.virtualCalls,
      externallyConstructed: this.externallyConstructed,
      integerCopies: this.integerCopies,
      refinement: this.refinement,
      statistics: {
        functions: module.functions.length,
        definedFunctions: module.functions.filter((f) => !f.isDeclaration).length,
        globals: module.globals.length,
        instructions: this.instructionCount,
        heapSites: this.heapSites,
        indirectCalls: this.indirectCalls,
        unknownExternalCalls: this.unknownExternalCalls,
      },
    };
  }

  readFunction(f: IrFunction): void {
    this.current = f;
    this.locals = new Map();
    this.pointeeTypes.clear();
    this.arrayElements.clear();
    this.castDefinitions.clear();
    this.arithmetic.clear();
    this.beforeTheirBase.clear();
    this.loadedBeforeBase.clear();
    this.integerLoads.clear();
    this.testedVtables.clear();
    this.functionVirtualCalls = this.hasVtables ? virtualCallSlots(f, this.layout) : new Map();
    this.virtualVtableLoads = new Set([...this.functionVirtualCalls.values()].map((call) => call.vtable));
    for (const i of f.instructions) {
      if (i.op === 'cast') this.castDefinitions.set(i.result, { op: i.name, operand: i.operand });
      else if (i.op === 'other' && i.operands !== undefined && i.result !== undefined)
        this.arithmetic.set(i.result, { op: i.name, operands: i.operands });
      else if (i.op === 'getelementptr' && i.indices.some((x) => x.value.kind === 'int' && x.value.value < 0))
        this.beforeTheirBase.add(i.result);
      else if (i.op === 'load') {
        if (i.pointer.value.kind === 'local' && this.beforeTheirBase.has(i.pointer.value.name))
          this.loadedBeforeBase.add(i.result);
        if (this.layout.isWideInteger(i.type)) this.integerLoads.set(i.result, i.pointer);
      }
      if (i.op === 'call') this.readTypeTest(i);
    }
    const object = this.functionObjects.get(f.name) as number;
    for (const i of f.instructions)
      if ('result' in i && i.result !== undefined) this.allLocals.add(`${i.result} in ${f.name}`);
    f.paramNames.forEach((name, i) => {
      if (name === undefined) return;
      this.allLocals.add(`${name} in ${f.name}`);
      this.locals.set(name, object + FIRST_PARAM_FIELD + i);
      this.valueNodes.set(`${name} in ${f.name}`, object + FIRST_PARAM_FIELD + i);
    });
    for (const instruction of f.instructions) {
      this.instructionCount++;
      this.readInstruction(f, object, instruction);
    }
  }

  readInstruction(f: IrFunction, object: number, i: IrInstruction): void {
    const { b } = this;
    switch (i.op) {
      case 'alloca': {
        this.pointeeTypes.set(i.result, i.allocated);
        const base = b.object(`${i.result} in ${f.name}`, { fields: this.layout.flatSize(i.allocated) });
        this.objectNames.set(base, `${i.result} in ${f.name}`);
        b.addressOf(this.localNode(i.result), base);
        return;
      }
      case 'load': {
        if (!this.layout.carriesPointer(i.type)) return;
        if (this.loadTypeTestedVtable(f, i.result)) return;
        if (this.virtualVtableLoads.has(i.result) && this.loadVirtualCallVtable(f, i)) return;
        const pointer = this.nodeOf(i.pointer);
        if (pointer === undefined) return;
        const result = this.localNode(i.result);
        const fields = this.layout.resolve(i.type).kind === 'ptr' ? 1 : this.layout.flatSize(i.type);
        for (let k = 0; k < fields; k++) b.load(result, pointer, k);
        return;
      }
      case 'store': {
        if (!this.layout.carriesPointer(i.value.type)) {
          const copied =
            i.value.value.kind === 'local' ? this.integerLoads.get(i.value.value.name) : undefined;
          const from = copied === undefined ? undefined : this.nodeOf(copied);
          const to = this.nodeOf(i.pointer);
          if (from !== undefined && to !== undefined) this.integerCopies.push({ from, to });
          this.storeAddressInteger(i.value, i.pointer);
          return;
        }
        const vptrByte = this.structors.get(f.name)?.vptrStores.get(i);
        const pointer = vptrByte === undefined ? this.nodeOf(i.pointer) : this.vptrTarget(f.name, vptrByte);
        const value = this.nodeOf(i.value);
        if (pointer === undefined || value === undefined) return;
        const fields =
          this.layout.resolve(i.value.type).kind === 'ptr' ? 1 : this.layout.flatSize(i.value.type);
        for (let k = 0; k < fields; k++) b.store(pointer, value, k);
        return;
      }
      case 'getelementptr': {
        const base = this.nodeOf(i.base);
        if (base === undefined) return;
        const result = this.localNode(i.result);
        const source = this.layout.resolve(i.sourceType);
        if (source.kind === 'int' && source.bits === 8 && i.indices.length === 1) {
          this.byteOffset(result, base, i.base.value, (i.indices[0] as IrTypedValue).value);
          return;
        }
        const { offsets, backwards } = this.gepOffsets(i.sourceType, i.indices, i.base.value);
        this.offsetsInto(result, base, offsets);
        if (backwards) b.copy(result, this.unknownAddress);
        const pointee = this.layout.indexedType(i.sourceType, i.indices);
        if (pointee !== undefined) this.pointeeTypes.set(i.result, pointee);
        if (this.layout.endsInArray(i.sourceType, i.indices)) this.arrayElements.add(i.result);
        return;
      }
      case 'cast': {
        const node = this.castNode(i.name, i.operand);
        if (node !== undefined && this.layout.carriesPointer(i.to)) b.copy(this.localNode(i.result), node);
        return;
      }
      case 'phi': {
        if (!this.layout.carriesPointer(i.type)) return;
        const result = this.localNode(i.result);
        for (const incoming of i.incoming) {
          const node = this.valueNode(incoming);
          if (node !== undefined) b.copy(result, node);
        }
        return;
      }
      case 'select': {
        if (!this.layout.carriesPointer(i.type)) return;
        const result = this.localNode(i.result);
        for (const choice of i.choices) {
          const node = this.nodeOf(choice);
          if (node !== undefined) b.copy(result, node);
        }
        return;
      }
      case 'ret': {
        if (i.value === undefined || !this.layout.carriesPointer(i.value.type)) return;
        // A wrapper's blocks are its callers' objects, one per call site.
        if (this.refinement.allocationWrappers.has(f.name)) return;
        const node = this.nodeOf(i.value);
        if (node === undefined) return;
        b.copy(object + RETURN_FIELD, node);
        if (this.refinement.constructedVtables.size > 0) b.copy(this.bodyReturn(f.name), node);
        return;
      }
      case 'extractvalue':
      case 'insertvalue': {
        const result = this.localNode(i.result);
        const parts = i.op === 'insertvalue' ? [i.aggregate, i.element] : [i.aggregate];
        for (const part of parts) {
          const node = this.nodeOf(part);
          if (node !== undefined) b.copy(result, node);
        }
        return;
      }
      case 'va_arg': {
        const list = this.nodeOf(i.list);
        if (list === undefined || !this.layout.carriesPointer(i.type)) return;
        const area = b.variable();
        b.load(area, list);
        b.load(this.localNode(i.result), area);
        return;
      }
      case 'atomic': {
        const pointer = this.nodeOf(i.pointer);
        if (pointer === undefined || !this.layout.carriesPointer(i.type)) return;
        b.load(this.localNode(i.result), pointer);
        const stored = this.nodeOf(i.stored);
        if (stored !== undefined) b.store(pointer, stored);
        return;
      }
      case 'call':
        this.readCall(f, i);
        return;
      case 'other':
        if (i.result === undefined || i.type === undefined) return;
        b.copy(this.localNode(i.result), this.unknownAddress);
        // A landing pad receives what any `throw` of the module threw (and, above, what
        // unknown code threw).
        if (i.name === 'landingpad') b.copy(this.localNode(i.result), this.thrown);
        return;
    }
  }

  /**
   * `store i64 (ptrtoint p), q`: the integer is an address, stored as the pointer it was, so that
   * memory read back as a pointer (a union, `memcpy` into a pointer) has it.
   */
  storeAddressInteger(value: IrTypedValue, pointer: IrTypedValue): void {
    const cast =
      value.value.kind === 'cast'
        ? value.value
        : value.value.kind === 'local'
          ? this.castDefinitions.get(value.value.name)
          : undefined;
    if (cast?.op !== 'ptrtoint') return;
    const address = this.nodeOf(cast.operand);
    const target = this.nodeOf(pointer);
    if (address !== undefined && target !== undefined) this.b.store(target, address);
  }

  readCall(f: IrFunction, i: IrInstruction & { op: 'call' }): void {
    const { b } = this;
    const args = i.args.map((a) => (this.layout.carriesPointer(a.type) ? this.nodeOf(a) : undefined));
    const result =
      i.result !== undefined && this.layout.carriesPointer(i.resultType)
        ? this.localNode(i.result)
        : undefined;
    const calleeName = directCallee(i.callee);
    if (calleeName !== undefined && aliasCheckKind(stripSigil(calleeName)) !== undefined) {
      // A check is a question to the analysis, not a call of the program, whether the suite
      // declares the check function or defines it (a header with bodies): its body is not bound.
      this.readLibraryCall(f, i, stripSigil(calleeName), args, result);
      return;
    }
    if (calleeName === '@llvm.dbg.value' || calleeName === '@llvm.dbg.declare') {
      this.readDebugBinding(f, i, calleeName === '@llvm.dbg.declare');
      return;
    }
    if (calleeName?.startsWith('@llvm.')) {
      this.readLibraryCall(f, i, stripSigil(calleeName), args, result);
      return; // intrinsics are not calls of the program: no call site
    }
    const site: CallSite = {
      id: this.callSites.length,
      caller: f.name,
      irLine: i.irLine,
      line: this.sourceLine(i),
      direct: calleeName,
      pointerNode: calleeName === undefined ? this.valueNode(i.callee) : undefined,
    };
    this.callSites.push(site);
    if (calleeName === undefined) {
      if (i.callee.kind === 'opaque') {
        this.unknownCall(args, result); // inline assembly (`call asm`, `callbr asm`)
        return;
      }
      const pointer = site.pointerNode;
      if (pointer === undefined) return;
      this.indirectCalls++;
      // Arguments go into the callee's parameter fields and the result comes out of its return
      // field, for whichever functions the pointer comes to hold (offsets past a callee's
      // parameters do not apply).
      args.forEach((arg, k) => {
        if (arg !== undefined) b.store(pointer, arg, FIRST_PARAM_FIELD + k);
      });
      if (result === undefined) return;
      const callees = this.boundedCallees(f, i);
      if (callees === undefined) b.load(result, pointer, RETURN_FIELD);
      else for (const callee of callees) b.copy(result, this.bodyReturn(callee));
      const wrapper = this.refinement.wrapperCalls.get(`${f.name} ${i.irLine}`);
      if (wrapper !== undefined) b.addressOf(result, this.heapObject(f, i, stripSigil(wrapper)));
      return;
    }
    const callee = this.functionsByName.get(calleeName);
    if (this.structors.get(calleeName)?.kind === 'ctor') {
      const caller = this.structors.get(f.name);
      const self = i.args[0]?.value;
      const own = caller?.kind === 'ctor' && self?.kind === 'local';
      const byte = own ? caller.thisBytes.get(self.name) : undefined;
      const field = own ? caller.thisFields.get(self.name) : undefined;
      const calls = this.constructorCalls.get(calleeName) ?? [];
      calls.push({ caller: f.name, self: args[0], byte, field });
      this.constructorCalls.set(calleeName, calls);
    }
    if (callee !== undefined && !callee.isDeclaration) {
      const object = this.functionObjects.get(calleeName) as number;
      const params = callee.type.params.length;
      args.forEach((arg, k) => {
        if (arg !== undefined) b.copy(object + FIRST_PARAM_FIELD + Math.min(k, params), arg);
      });
      if (result === undefined) return;
      if (this.refinement.allocationWrappers.has(calleeName))
        b.addressOf(result, this.heapObject(f, i, stripSigil(calleeName)));
      else b.copy(result, object + RETURN_FIELD);
      return;
    }
    // A declared constructor stores vtable pointers the module does not see.
    if (CONSTRUCTOR_NAME.test(calleeName) && args[0] !== undefined) this.externallyConstructed.push(args[0]);
    this.readLibraryCall(f, i, stripSigil(calleeName), args, result);
  }

  /**
   * A declared function called through a pointer: the call reads its return field and writes its
   * parameter fields, which no body connects. Its summary connects them as for a direct call (an
   * allocator returns one heap object for all such calls); a function without one acts as unknown
   * code: what it is given escapes and it returns the unknown object.
   */
  externalThroughPointer(f: IrFunction): void {
    const name = stripSigil(f.name);
    if (name.startsWith('llvm.') || aliasCheckKind(name) !== undefined || NO_POINTER_EFFECT.has(name)) return;
    const object = this.functionObjects.get(f.name) as number;
    const params = Array.from({ length: f.type.params.length + 1 }, (_, k) => object + FIRST_PARAM_FIELD + k);
    const call = {
      op: 'call',
      irLine: f.line,
      result: undefined,
      resultType: f.type.result,
      callee: { kind: 'global', name: f.name },
      args: [],
    } as const;
    const unknownCalls = this.unknownExternalCalls;
    this.readLibraryCall(f, call, name, params, object + RETURN_FIELD);
    this.unknownExternalCalls = unknownCalls; // no call site of the program
  }

  /** A debug binding of a source variable to an IR value (a pointer, or for `declare` its storage). */
  readDebugBinding(f: IrFunction, i: IrInstruction & { op: 'call' }, indirect: boolean): void {
    const bound = i.args[0]?.value;
    const variable = i.args[1]?.value;
    if (bound?.kind !== 'opaque' || variable?.kind !== 'opaque' || bound.wrapped === undefined) return;
    const info = variable.id === undefined ? undefined : this.module.debugVariables?.get(variable.id);
    if (info === undefined) return;
    if (!indirect && !this.layout.carriesPointer(bound.wrapped.type)) return;
    const node = this.nodeOf(bound.wrapped);
    if (node === undefined) return;
    this.sourceVariables.push({ function: f.name, name: info.name, line: info.line, node, indirect });
  }

  /**
   * Where a simple structor's store of a vtable address into `this + byte` goes (see
   * {@link Structor}): a destructor's nowhere; a constructor's into the objects whose vtable
   * pointer at that byte no calling constructor overwrites, {@link finalVtableObjects}.
   */
  vptrTarget(structor: string, byte: number): number | undefined {
    if (this.structors.get(structor)?.kind !== 'ctor') return undefined;
    const target = this.finalVtableNode(structor, byte);
    if (byte === 0) return target;
    const shifted = this.b.variable();
    this.anywhereFrom(shifted, target);
    return shifted;
  }

  finalVtableNode(structor: string, byte: number): number {
    const key = `${structor} ${byte}`;
    let node = this.finalVtables.get(key);
    if (node === undefined) {
      node = this.b.variable(`<${structor} final at byte ${byte}>`);
      this.finalVtables.set(key, node);
      this.finalVtablesPending.push([structor, byte, node]);
    }
    return node;
  }

  /**
   * The objects whose vtable pointer at `this + byte` of a constructor is final: what every call
   * passes as `this`, except a constructor calling it on its own `this + k` when that
   * constructor stores its own vtable at `k + byte` (then whose it is depends on that
   * constructor's callers, recursively).
   */
  finalVtableObjects(): void {
    for (
      let next = this.finalVtablesPending.pop();
      next !== undefined;
      next = this.finalVtablesPending.pop()
    ) {
      const [structor, byte, node] = next;
      for (const call of this.constructorCalls.get(structor) ?? []) {
        if (call.byte === undefined) {
          if (call.self !== undefined) this.b.copy(node, call.self);
          continue;
        }
        const caller = this.structors.get(call.caller) as Structor;
        if (caller.vptrBytes.has(call.byte + byte)) continue;
        const outer = this.finalVtableNode(call.caller, call.byte + byte);
        if (call.field !== undefined) this.offsetInto(node, outer, call.field);
        else this.anywhereFrom(node, outer);
      }
    }
  }

  /**
   * Once per module, what unknown code (an unknown function, inline assembly, a call through an
   * unknown pointer) may do with what escaped to it, the unknown object's set `escaped`: reach
   * everything stored in it, write anything into it, and call any function among it with
   * anything (its parameters are fields), keeping what it returns (a field too).
   */
  escapedObjects(): void {
    const { b } = this;
    const escaped = b.variable('<escaped>');
    b.load(escaped, this.unknownAddress);
    const functionFields = Math.max(0, ...this.module.functions.map((f) => f.type.params.length + 3));
    for (let k = 0; k < Math.max(this.largest, functionFields); k++) {
      b.load(this.unknown, escaped, k);
      b.store(escaped, this.unknownAddress, k);
    }
  }
}
