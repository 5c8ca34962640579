import { type ConstraintBuilder, createConstraintBuilder } from '../model/builder';
import type { ConstraintProgram } from '../model/program';
import { type AliasCheckKind, aliasCheckKind } from './alias-checks';
import { findStructors, type Structor } from './cxx';
import type { IrFunction, IrInstruction, IrModule, IrType, IrTypedValue, IrValue } from './ir';
import { type ConstantLeaf, isVtable, TypeLayout } from './layout';
import {
  ALLOCATES_INTO_FIRST,
  CALLS_BACK,
  type CallbackArgument,
  LIBRARY_ALLOCATORS,
  NO_POINTER_EFFECT,
  RETURNS_ARGUMENT,
  RETURNS_FIRST_ARGUMENT,
  RETURNS_UNKNOWN_ONLY,
  STORES_FIRST_INTO_SECOND,
} from './summaries';

/** Options of {@link extractConstraints}. */
export interface ExtractOptions {
  /**
   * Functions that return a fresh heap object at each call site, beside the C library's
   * (`malloc`, `calloc`, `realloc`, `strdup`, …): your own allocators, e.g. `['xmalloc']`.
   */
  readonly allocators?: readonly string[] | undefined;
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
  /** Functions of the module, declared or defined, whose names are aliasing-fact checks (`@MAYALIAS`). */
  readonly checkFunctions: readonly string[];
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

/** How a global is laid out: the pointers of its initializer, the layouts it is read through, its field count. */
interface GlobalLayout {
  readonly leaves: readonly ConstantLeaf[];
  /** Empty for a vtable, whose slots are one field each. */
  readonly views: readonly IrType[];
  readonly fields: number;
}

/** Function object layout: field 0 the function, 1 its return value, then parameters, then one varargs slot. */
const RETURN_FIELD = 1;
const FIRST_PARAM_FIELD = 2;

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
export function extractConstraints(module: IrModule, options: ExtractOptions = {}): ExtractedModule {
  return new Extractor(module, options).run();
}

class Extractor {
  readonly module: IrModule;
  readonly b: ConstraintBuilder = createConstraintBuilder();
  readonly allocators: Set<string>;
  readonly valueNodes = new Map<string, number>();
  readonly allLocals = new Set<string>();
  readonly objectNames = new Map<number, string>();
  readonly functionObjects = new Map<string, number>();
  readonly functionsByName = new Map<string, IrFunction>();
  readonly globalObjects = new Map<string, number>();
  readonly globalTypes = new Map<string, IrType>();
  readonly globalLayouts = new Map<string, GlobalLayout>();
  readonly layout: TypeLayout;
  readonly addressNodes = new Map<number, number>();
  readonly callSites: CallSite[] = [];
  readonly checks: AliasCheckSite[] = [];
  /** Largest flattened size of any type in the module: the field count of heap and unknown objects. */
  largest = 1;
  unknown = 0;
  unknownAddress = 0;
  heapSites = 0;
  instructionCount = 0;
  unknownExternalCalls = 0;
  indirectCalls = 0;
  /** What `strtok` keeps between calls. */
  strtokState = 0;
  /** Every exception object the module throws. */
  thrown = 0;
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
  /** Whether the module has a class with several or virtual bases (a `__vmi_class_type_info`). */
  multipleInheritance = false;
  /** Pointee types of this function's pointers where the IR shows them (allocas, struct GEPs). */
  readonly pointeeTypes = new Map<string, IrType>();
  /** This function's pointers known to point to an array element (a GEP's last index into an array). */
  readonly arrayElements = new Set<string>();
  /** The function being read and its local value nodes. */
  current: IrFunction | undefined;
  locals = new Map<string, number>();

  constructor(module: IrModule, options: ExtractOptions) {
    this.module = module;
    this.layout = new TypeLayout(module);
    this.allocators = new Set([...LIBRARY_ALLOCATORS, ...(options.allocators ?? []).map(stripSigil)]);
  }

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
    for (const f of module.functions) {
      for (const i of f.instructions)
        if (i.op === 'alloca') this.largest = Math.max(this.largest, this.layout.flatSize(i.allocated));
    }
    this.unknown = b.object('<unknown>', { fields: this.largest });
    this.objectNames.set(this.unknown, '<unknown>');
    this.unknownAddress = b.variable('&<unknown>');
    this.strtokState = b.variable('<strtok>');
    this.thrown = b.variable('<thrown>');
    this.multipleInheritance = module.globals.some((g) => g.name.includes('__vmi_class_type_info'));
    b.addressOf(this.unknownAddress, this.unknown);
    // The unknown object may hold anything, itself included: every field points to it.
    for (let k = 0; k < this.largest; k++) b.addressOf(this.unknown + k, this.unknown);

    for (const f of module.functions) {
      this.functionsByName.set(f.name, f);
      const base = b.object(f.name, { fields: f.type.params.length + 3, function: true });
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
    this.structors = findStructors(module, this.layout, (name) => {
      const plain = stripSigil(name);
      return (
        NO_POINTER_EFFECT.has(plain) || this.allocators.has(plain) || aliasCheckKind(plain) !== undefined
      );
    });
    for (const f of module.functions) if (!f.isDeclaration) this.readFunction(f);
    this.current = undefined;
    this.finalVtableObjects();
    this.escapedObjects();
    return {
      program: b.build(),
      valueNodes: this.valueNodes,
      locals: this.allLocals,
      objectNames: this.objectNames,
      functionObjects: this.functionObjects,
      unknownObject: { base: this.unknown, size: this.largest },
      callSites: this.callSites,
      checks: this.checks,
      checkFunctions: module.functions
        .map((f) => f.name)
        .filter((name) => aliasCheckKind(stripSigil(name)) !== undefined),
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

  /** The pointee type a pointer value is known to have (an alloca, a global, a struct GEP). */
  staticPointee(value: IrValue): IrType | undefined {
    if (value.kind === 'local') return this.pointeeTypes.get(value.name);
    if (value.kind === 'global') return this.globalTypes.get(value.name);
    if (value.kind === 'cast') return this.staticPointee(value.operand.value);
    if (value.kind === 'gep') return this.layout.indexedType(value.sourceType, value.indices);
    return undefined;
  }

  /**
   * `result = (char *)base + index`. Zero is a copy. A positive constant into a value of known
   * struct type is the field at that byte. A negative constant (container_of) may land anywhere
   * before: the unknown object. Anything else — a variable index, or a constant into memory of
   * unknown type — may reach any later field of the object: one offset constraint per field (char
   * buffers are one-field objects, so they stay precise).
   */
  byteOffset(result: number, base: number, baseValue: IrValue, index: IrValue): void {
    const { b } = this;
    if (index.kind === 'int' && index.value === 0) {
      b.copy(result, base);
      return;
    }
    if (index.kind === 'int' && index.value < 0) {
      b.copy(result, this.unknownAddress);
      return;
    }
    if (index.kind === 'int') {
      const fields = this.fieldsAtByte(baseValue, index.value);
      if (fields !== undefined) {
        for (const field of fields) this.offsetInto(result, base, field);
        return;
      }
    }
    this.anywhereFrom(result, base);
  }

  /** `result = base + field` (a copy for field 0). */
  offsetInto(result: number, base: number, field: number): void {
    if (field >= this.largest) return; // past every object that data lives in
    if (field === 0) this.b.copy(result, base);
    else this.b.offset(result, base, field);
  }

  /**
   * The fields byte `byte` of what `value` points to may be, when its type is known to be a
   * struct: a global in each layout it is read through, a vtable's slot, an `alloca` or a field.
   */
  fieldsAtByte(value: IrValue, byte: number): number[] | undefined {
    const global = globalName(value);
    if (global !== undefined && this.globalLayouts.has(global)) {
      const { views } = this.globalLayouts.get(global) as GlobalLayout;
      if (views.length === 0) return [Math.floor(byte / 8)];
      if (!views.every((view) => this.layout.resolve(view).kind === 'struct')) return undefined;
      const fields = views.map((view) => this.layout.fieldAtByte(view, byte));
      return fields.includes(undefined) ? undefined : [...new Set(fields as number[])];
    }
    const pointee = this.staticPointee(value);
    if (pointee === undefined || this.layout.resolve(pointee).kind !== 'struct') return undefined;
    const field = this.layout.fieldAtByte(pointee, byte);
    return field === undefined ? undefined : [field];
  }

  /**
   * The fields a `getelementptr` (not over bytes) may reach from its base's field, and whether it
   * may leave the object backwards. The indices after the first select a field (arrays collapsed).
   * The first steps over whole elements: none for 0, or when the base points into an array (its
   * elements are one location); for a constant k it may stay (an array) or move k elements on
   * (a struct's fields or a vtable's slots read as an array); for a variable it may move any
   * number of elements on. A vtable's slots are one field each, by byte offset.
   */
  gepOffsets(
    sourceType: IrType,
    indices: readonly IrTypedValue[],
    base: IrValue,
  ): { offsets: number[]; backwards: boolean } {
    const global = globalName(base);
    if (global !== undefined && isVtable(global)) {
      const byte = this.layout.byteOffsetOf(sourceType, indices);
      if (byte !== undefined && byte >= 0) return { offsets: [Math.floor(byte / 8)], backwards: false };
    }
    const field = this.layout.fieldOffset(sourceType, indices);
    const first = indices[0]?.value;
    if (first === undefined || (first.kind === 'int' && first.value === 0) || this.pointsIntoArray(base))
      return { offsets: [field], backwards: false };
    const stride = this.layout.flatSize(sourceType);
    if (first.kind === 'int')
      return first.value > 0
        ? { offsets: [field, field + first.value * stride], backwards: false }
        : { offsets: [field], backwards: true };
    const offsets: number[] = [];
    for (let k = field; k < this.largest; k += stride) offsets.push(k);
    return { offsets, backwards: false };
  }

  /** Whether a pointer is known to point to an array element (so whole-element steps stay in the array). */
  pointsIntoArray(value: IrValue): boolean {
    if (value.kind === 'local') {
      if (this.arrayElements.has(value.name)) return true;
      const pointee = this.pointeeTypes.get(value.name);
      return pointee !== undefined && this.layout.resolve(pointee).kind === 'array';
    }
    if (value.kind === 'global') {
      const type = this.globalTypes.get(value.name);
      return type !== undefined && this.layout.resolve(type).kind === 'array';
    }
    if (value.kind === 'cast') return this.pointsIntoArray(value.operand.value);
    if (value.kind === 'gep') return this.layout.endsInArray(value.sourceType, value.indices);
    return false;
  }

  // ── values ─────────────────────────────────────────────────────────────────────────────────

  addressOf(base: number): number {
    let node = this.addressNodes.get(base);
    if (node === undefined) {
      node = this.b.variable(`&${this.objectNames.get(base) ?? base}`);
      this.b.addressOf(node, base);
      this.addressNodes.set(base, node);
    }
    return node;
  }

  globalNode(name: string): number | undefined {
    const aliased = this.valueNodes.get(name);
    if (aliased !== undefined) return aliased;
    const object = this.globalObjects.get(name) ?? this.functionObjects.get(name);
    if (object === undefined) return undefined;
    const node = this.addressOf(object);
    this.valueNodes.set(name, node);
    return node;
  }

  localNode(name: string): number {
    let node = this.locals.get(name);
    if (node === undefined) {
      const f = this.current as IrFunction;
      const key = `${name} in ${f.name}`;
      node = this.b.variable(key);
      this.locals.set(name, node);
      this.valueNodes.set(key, node);
    }
    return node;
  }

  /** The node whose points-to set is the value's, or undefined when it cannot hold a pointer. */
  nodeOf(typed: IrTypedValue): number | undefined {
    return this.valueNode(typed.value);
  }

  valueNode(value: IrValue): number | undefined {
    switch (value.kind) {
      case 'local':
        return this.current === undefined ? undefined : this.localNode(value.name);
      case 'global':
        return this.globalNode(value.name);
      case 'empty':
      case 'int':
      case 'opaque':
        return undefined;
      case 'aggregate': {
        // Aggregate SSA values are field-insensitive: one node holds every element's targets.
        const parts = value.elements.map((e) => this.nodeOf(e)).filter((n) => n !== undefined);
        if (parts.length === 0) return undefined;
        if (parts.length === 1) return parts[0];
        const node = this.b.variable('{aggregate}');
        for (const part of parts) this.b.copy(node, part);
        return node;
      }
      case 'gep': {
        const base = this.nodeOf(value.base);
        if (base === undefined) return undefined;
        const source = this.layout.resolve(value.sourceType);
        if (source.kind === 'int' && source.bits === 8 && value.indices.length === 1) {
          const node = this.b.variable();
          this.byteOffset(node, base, value.base.value, (value.indices[0] as IrTypedValue).value);
          return node;
        }
        const { offsets, backwards } = this.gepOffsets(value.sourceType, value.indices, value.base.value);
        if (offsets.length === 1 && offsets[0] === 0 && !backwards) return base;
        const node = this.b.variable();
        for (const offset of offsets) this.offsetInto(node, base, offset);
        if (backwards) this.b.copy(node, this.unknownAddress);
        return node;
      }
      case 'cast':
        return this.castNode(value.op, value.operand);
    }
  }

  castNode(op: string, operand: IrTypedValue): number | undefined {
    if (op === 'inttoptr') return this.unknownAddress;
    const node = this.nodeOf(operand);
    if (op === 'ptrtoint') {
      // The address escapes into an integer: whatever comes back through inttoptr may be it.
      if (node !== undefined) this.b.copy(this.unknown, node);
      return undefined;
    }
    return node;
  }

  /**
   * A global's initializer: each pointer of the constant goes into the field at its byte offset,
   * in every layout the global may be read through (see {@link TypeLayout.readingViews}); a
   * vtable's slots are one field each.
   */
  initialize(name: string, base: number): void {
    const { leaves, views, fields } = this.globalLayouts.get(name) as GlobalLayout;
    for (const leaf of leaves) {
      const node = this.valueNode(leaf.value);
      if (node === undefined) continue;
      const targets = new Set<number>();
      if (views.length === 0) targets.add(Math.floor(leaf.byte / 8));
      for (const view of views) {
        const unit = this.layout.byteLayout(view).size;
        const field = this.layout.fieldAtByte(view, unit > 0 ? leaf.byte % unit : leaf.byte);
        if (field !== undefined) targets.add(field);
      }
      for (const field of targets) if (field < fields) this.b.copy(base + field, node);
    }
  }

  // ── instructions ───────────────────────────────────────────────────────────────────────────

  readFunction(f: IrFunction): void {
    this.current = f;
    this.locals = new Map();
    this.pointeeTypes.clear();
    this.arrayElements.clear();
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

  sourceLine(instruction: IrInstruction): number | undefined {
    return instruction.dbg === undefined ? undefined : this.module.debugLines.get(instruction.dbg);
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
        const pointer = this.nodeOf(i.pointer);
        if (pointer === undefined) return;
        const result = this.localNode(i.result);
        const fields = this.layout.resolve(i.type).kind === 'ptr' ? 1 : this.layout.flatSize(i.type);
        for (let k = 0; k < fields; k++) b.load(result, pointer, k);
        return;
      }
      case 'store': {
        if (!this.layout.carriesPointer(i.value.type)) return;
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
        for (const offset of offsets) this.offsetInto(result, base, offset);
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
        const node = this.nodeOf(i.value);
        if (node !== undefined) b.copy(object + RETURN_FIELD, node);
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
      if (result !== undefined) b.load(result, pointer, RETURN_FIELD);
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
      if (result !== undefined) b.copy(result, object + RETURN_FIELD);
      return;
    }
    this.readLibraryCall(f, i, stripSigil(calleeName), args, result);
  }

  readLibraryCall(
    f: IrFunction,
    i: IrInstruction & { op: 'call' },
    name: string,
    args: (number | undefined)[],
    result: number | undefined,
  ): void {
    const { b } = this;
    const checkKind = aliasCheckKind(name);
    if (checkKind !== undefined) {
      this.checks.push({
        kind: checkKind,
        function: stripSigil(f.name),
        irLine: i.irLine,
        line: this.sourceLine(i),
        first: args[0],
        second: args[1],
      });
      return;
    }
    if (this.allocators.has(name) || ALLOCATES_INTO_FIRST.has(name)) {
      const heap = this.heapObject(f, i, name);
      if (ALLOCATES_INTO_FIRST.has(name)) {
        if (args[0] !== undefined) b.store(args[0], this.addressOf(heap));
      } else if (result !== undefined) {
        b.addressOf(result, heap);
        if (name === 'realloc' || name === 'reallocarray') if (args[0] !== undefined) b.copy(result, args[0]);
      }
      return;
    }
    if (name.startsWith('llvm.')) {
      this.readIntrinsic(f, name.slice(5), args, result);
      return;
    }
    if (/^(memcpy|memmove|mempcpy|__memcpy_chk|__memmove_chk|bcopy)$/.test(name)) {
      if (name === 'bcopy') this.copyFields(args[1], args[0]);
      else this.copyFields(args[0], args[1]);
      if (result !== undefined && args[0] !== undefined) b.copy(result, args[0]);
      return;
    }
    if (name === '__dynamic_cast') {
      // dynamic_cast<T *>(p) is p moved to the T subobject of the same complete object: at or
      // after p within it (a negative move, out of a secondary base, is the unknown object's).
      if (result === undefined || args[0] === undefined) return;
      this.anywhereFrom(result, args[0]);
      if (this.multipleInheritance) b.copy(result, this.unknownAddress);
      return;
    }
    if (NO_POINTER_EFFECT.has(name)) return;
    if (RETURNS_FIRST_ARGUMENT.has(name)) {
      if (result !== undefined && args[0] !== undefined) b.copy(result, args[0]);
      if (name === 'strtok' && result !== undefined) {
        // strtok(NULL, …) goes on in the string an earlier call was given.
        if (args[0] !== undefined) b.copy(this.strtokState, args[0]);
        b.copy(result, this.strtokState);
      }
      return;
    }
    const returned = RETURNS_ARGUMENT.get(name);
    if (returned !== undefined) {
      const arg = args[returned];
      if (result !== undefined && arg !== undefined) b.copy(result, arg);
      if (name === 'mempcpy' || name === 'memccpy' || name === 'wmemcpy') this.copyFields(args[0], args[1]);
      return;
    }
    if (RETURNS_UNKNOWN_ONLY.has(name)) {
      if (result !== undefined) b.copy(result, this.unknownAddress);
      return;
    }
    if (name === 'realpath') {
      // realpath(path, resolved): resolved, or a new block when resolved is NULL.
      if (result === undefined) return;
      if (args[1] !== undefined) b.copy(result, args[1]);
      b.addressOf(result, this.heapObject(f, i, name));
      return;
    }
    if (name === 'strsep') {
      // strsep(&s, delim) returns *s and moves *s forward in the same string.
      if (result !== undefined && args[0] !== undefined) b.load(result, args[0]);
      return;
    }
    if (name === '__cxa_begin_catch' || name === '__cxa_get_exception_ptr') {
      // The exception object, or for a handler of a pointer type the pointer thrown (in it).
      if (result === undefined || args[0] === undefined) return;
      b.copy(result, args[0]);
      b.load(result, args[0]);
      return;
    }
    if (name === '__cxa_throw' && args[0] !== undefined) b.copy(this.thrown, args[0]);
    if (name === 'sigaction') {
      this.copyFields(args[2], args[1]); // the old action receives the new one's handler
      return;
    }
    if (STORES_FIRST_INTO_SECOND.has(name)) {
      if (args[0] !== undefined && args[1] !== undefined) b.store(args[1], args[0]);
      return;
    }
    const callback = CALLS_BACK.get(name);
    if (callback !== undefined) {
      this.callBack(callback, args, result);
      return;
    }
    this.unknownCall(args, result);
  }

  /**
   * A call of a function the analysis cannot see (an undeclared library function, inline
   * assembly, `callbr`): it may return anything, keep what it is given, and store anything
   * through — or call anything reachable from — the pointers it gets. The unknown object holds
   * what escapes; every function whose address escapes into it is called with unknown arguments.
   */
  unknownCall(args: readonly (number | undefined)[], result: number | undefined): void {
    const { b } = this;
    this.unknownExternalCalls++;
    if (result !== undefined) b.copy(result, this.unknownAddress);
    for (const arg of args) {
      if (arg === undefined) continue;
      b.copy(this.unknown, arg);
      b.store(arg, this.unknownAddress);
    }
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

  /** A library function calling back one of its arguments (`qsort`, `pthread_create`, …). */
  callBack(
    summary: NonNullable<ReturnType<typeof CALLS_BACK.get>>,
    args: readonly (number | undefined)[],
    result: number | undefined,
  ): void {
    const { b } = this;
    const callee = args[summary.callee];
    const passed = (what: CallbackArgument | undefined): number | undefined => {
      const node = what === undefined ? undefined : args[what.argument];
      if (node === undefined || !what?.anywhereInto) return node;
      const into = b.variable();
      this.anywhereFrom(into, node);
      return into;
    };
    if (callee !== undefined)
      summary.passes.forEach((what, k) => {
        const node = passed(what);
        if (node !== undefined) b.store(callee, node, FIRST_PARAM_FIELD + k);
      });
    if (result !== undefined) {
      const node = passed(summary.returns);
      b.copy(result, node ?? this.unknownAddress);
    }
  }

  /** `llvm.*` intrinsics: the memory ones copy, a few return their argument, the rest hold no pointer or are unknown. */
  readIntrinsic(
    f: IrFunction,
    name: string,
    args: readonly (number | undefined)[],
    result: number | undefined,
  ): void {
    const { b } = this;
    const family = name.split('.')[0] as string;
    if (family === 'memcpy' || family === 'memmove') {
      this.copyFields(args[0], args[1]);
      return;
    }
    if (family === 'va_start') {
      // The va_list's fields point to the varargs slot of this function's object, which holds
      // every pointer passed beyond the fixed parameters.
      const list = args[0];
      if (list === undefined) return;
      const object = this.functionObjects.get(f.name) as number;
      const area = this.addressOf(object + FIRST_PARAM_FIELD + f.type.params.length);
      for (let k = 0; k < this.largest; k++) b.store(list, area, k);
      return;
    }
    if (family === 'va_copy') {
      this.copyFields(args[0], args[1]);
      return;
    }
    if (['ptrmask', 'launder', 'strip', 'threadlocal', 'ssa', 'preserve', 'expect'].includes(family)) {
      if (result !== undefined && args[0] !== undefined) b.copy(result, args[0]);
      return;
    }
    if (
      name.startsWith('masked.load') ||
      name.startsWith('masked.gather') ||
      name.startsWith('masked.expandload')
    ) {
      if (result !== undefined && args[0] !== undefined) b.load(result, args[0]);
      if (result !== undefined && args[3] !== undefined) b.copy(result, args[3]); // the pass-through value
      return;
    }
    if (
      name.startsWith('masked.store') ||
      name.startsWith('masked.scatter') ||
      name.startsWith('masked.compressstore')
    ) {
      if (args[0] !== undefined && args[1] !== undefined) b.store(args[1], args[0]);
      return;
    }
    // Other intrinsics (memset, lifetime, dbg, stacksave, objectsize, arithmetic, …) write no
    // pointer the program can read; a pointer they return comes from nowhere we model.
    if (result !== undefined) b.copy(result, this.unknownAddress);
  }

  /** A new heap object for an allocation call (one per call site). */
  heapObject(f: IrFunction, i: IrInstruction, name: string): number {
    this.heapSites++;
    const line = this.sourceLine(i);
    const label = `${name} in ${f.name} at ${line === undefined ? `ir line ${i.irLine}` : `line ${line}`}`;
    const heap = this.b.object(label, { fields: this.largest });
    this.objectNames.set(heap, label);
    return heap;
  }

  /** `result = base + k` for every field k of the largest object: a pointer anywhere at or after `base`. */
  anywhereFrom(result: number, base: number): void {
    this.b.copy(result, base);
    for (let k = 1; k < this.largest; k++) this.b.offset(result, base, k);
  }

  /** `*dst = *src` field by field (memcpy, struct copies, va_copy), up to the largest object. */
  copyFields(dst: number | undefined, src: number | undefined): void {
    if (dst === undefined || src === undefined) return;
    for (let k = 0; k < this.largest; k++) {
      const temporary = this.b.variable();
      this.b.load(temporary, src, k);
      this.b.store(dst, temporary, k);
    }
  }
}

/** The global a pointer constant is the address of (through casts), if it is one. */
function globalName(value: IrValue): string | undefined {
  if (value.kind === 'global') return value.name;
  if (value.kind === 'cast') return globalName(value.operand.value);
  return undefined;
}

function stripSigil(name: string): string {
  let plain = name.startsWith('@') ? name.slice(1) : name;
  if (plain.startsWith('"') && plain.endsWith('"')) plain = plain.slice(1, -1);
  return plain;
}

/** The called function's name for a direct call (possibly through a constant cast), else undefined. */
function directCallee(callee: IrValue): string | undefined {
  if (callee.kind === 'global') return callee.name;
  if (callee.kind === 'cast') return directCallee(callee.operand.value);
  return undefined;
}
