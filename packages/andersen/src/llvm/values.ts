import { type ConstraintBuilder, createConstraintBuilder } from '../model/builder';
import type { AliasCheckSite, CallSite, ExtractOptions } from './extract';
import type { IrFunction, IrInstruction, IrModule, IrType, IrTypedValue, IrValue } from './ir';
import type { ConstantLeaf } from './layout';
import { isVtable, TypeLayout } from './layout';
import { LIBRARY_ALLOCATORS } from './summaries';

/** How a global is laid out: the pointers of its initializer, the layouts it is read through, its field count. */
export interface GlobalLayout {
  readonly leaves: readonly ConstantLeaf[];
  /** Empty for a vtable, whose slots are one field each. */
  readonly views: readonly IrType[];
  readonly fields: number;
}

/**
 * Function object layout: field 0 the function, 1 its return value, then the parameters, then the
 * variadic field (and, for a variadic function, one more per extra argument of the module's widest
 * indirect call, each copied into the variadic field).
 */
export const RETURN_FIELD = 1;
export const FIRST_PARAM_FIELD = 2;

/**
 * The state of a module's extraction and the constraints for its values: objects, the nodes of
 * IR values (constant expressions included), field offsets of `getelementptr`, global
 * initializers. {@link LibraryCalls} and the extractor build on it.
 */
export abstract class ModuleValues {
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
  /** `base first stride count` → a node holding `base + k` for those offsets ({@link offsetsInto}). */
  readonly sharedOffsets = new Map<string, number>();
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
  /** The address of each library function's own memory ({@link LibraryCalls.libraryMemory}). */
  readonly libraryObjects = new Map<string, number>();
  /** What `strtok` keeps between calls. */
  strtokState = 0;
  /** Every exception object the module throws. */
  thrown = 0;
  /** Whether the module has a class with several or virtual bases (a `__vmi_class_type_info`). */
  multipleInheritance = false;
  /** Pointee types of this function's pointers where the IR shows them (allocas, struct GEPs). */
  readonly pointeeTypes = new Map<string, IrType>();
  /** This function's pointers known to point to an array element (a GEP's last index into an array). */
  readonly arrayElements = new Set<string>();
  /** The function's casts by result, to follow an integer that becomes a pointer back to its origin. */
  readonly castDefinitions = new Map<string, { readonly op: string; readonly operand: IrTypedValue }>();
  /** The function's integer arithmetic by result (`sub`, `add`, … with their operands). */
  readonly arithmetic = new Map<string, { readonly op: string; readonly operands: readonly IrValue[] }>();
  /** The function's pointers a negative constant offset computes, and the integers loaded through them. */
  readonly beforeTheirBase = new Set<string>();
  readonly loadedBeforeBase = new Set<string>();
  /** The function's loads of integers as wide as a pointer or wider, by result: their pointers. */
  readonly integerLoads = new Map<string, IrTypedValue>();
  /** Nodes of the pointers integers as wide as a pointer are copied from and to, memory to memory. */
  readonly integerCopies: { readonly from: number; readonly to: number }[] = [];
  /** Nodes of the pointers the module turns into integers (`ptrtoint`). */
  readonly addressIntegers: number[] = [];
  /** Whether an integer of unknown origin becomes a pointer somewhere in the module. */
  integersBecomePointers = false;
  /** The function being read and its local value nodes. */
  current: IrFunction | undefined;
  locals = new Map<string, number>();

  constructor(module: IrModule, options: ExtractOptions) {
    this.module = module;
    this.layout = new TypeLayout(module);
    this.allocators = new Set([...LIBRARY_ALLOCATORS, ...(options.allocators ?? []).map(stripSigil)]);
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
    if (this.mayBeNegative(index)) b.copy(result, this.unknownAddress);
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
    return { offsets, backwards: this.mayBeNegative(first) };
  }

  /**
   * Whether a variable pointer offset may step backwards: a negative constant, a subtraction
   * (`p - n` is `p + (0 - n)`), an integer loaded through a pointer a negative constant offset
   * computed (the virtual-base offsets and offsets to the top that C++ reads before a vtable's
   * address point, and move `this` by), or a sum, product, shift, signed division, `or` or `xor`
   * (`~n` is `n xor -1`) of one, through sign extensions and truncations. Any other variable index
   * (a loop counter, a size) is taken to step forwards, as C's pointer arithmetic stays inside its
   * array from the element it starts at (which the offsets keep).
   */
  mayBeNegative(value: IrValue, depth = 0): boolean {
    if (value.kind === 'int') return value.value < 0;
    if (value.kind !== 'local' || depth > 8) return false;
    const cast = this.castDefinitions.get(value.name);
    if (cast !== undefined)
      return (cast.op === 'sext' || cast.op === 'trunc') && this.mayBeNegative(cast.operand.value, depth + 1);
    // A C++ virtual base's offset or an offset to the top, read from before a vtable's address point.
    if (this.loadedBeforeBase.has(value.name)) return true;
    const arithmetic = this.arithmetic.get(value.name);
    if (arithmetic === undefined) return false;
    if (arithmetic.op === 'sub') return true;
    const operands = arithmetic.op === 'shl' ? arithmetic.operands.slice(0, 1) : arithmetic.operands;
    return operands.some((operand) => this.mayBeNegative(operand, depth + 1));
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
        this.offsetsInto(node, base, offsets);
        if (backwards) this.b.copy(node, this.unknownAddress);
        return node;
      }
      case 'cast':
        return this.castNode(value.op, value.operand);
    }
  }

  castNode(op: string, operand: IrTypedValue): number | undefined {
    if (op === 'inttoptr') return this.integerToPointer(operand.value);
    const node = this.nodeOf(operand);
    if (op === 'ptrtoint') {
      // The address may come back through an inttoptr of an integer of unknown origin: then it
      // escapes (see {@link escapeAddressIntegers}).
      if (node !== undefined) this.addressIntegers.push(node);
      return undefined;
    }
    return node;
  }

  /**
   * What an integer converted to a pointer (`inttoptr`) may point to. An integer constant
   * (`(void *)-1`, `(void *)8`) is no address of the program's objects: nothing. A `ptrtoint`
   * converted straight back is its pointer. An integer widened from fewer bits than a pointer
   * (`zext`/`sext` of an `i32`) holds no address of a 64-bit program: nothing. Anything else
   * (arithmetic, a loaded or passed integer) may be any address the program turned into an
   * integer: the unknown object, and every such address escapes into it.
   */
  integerToPointer(value: IrValue): number | undefined {
    if (value.kind === 'int' || value.kind === 'empty') return undefined;
    const cast =
      value.kind === 'cast'
        ? value
        : value.kind === 'local'
          ? this.castDefinitions.get(value.name)
          : undefined;
    if (cast?.op === 'ptrtoint') return this.nodeOf(cast.operand);
    if (cast !== undefined && (cast.op === 'zext' || cast.op === 'sext')) {
      const from = this.layout.resolve(cast.operand.type);
      if (from.kind === 'int' && from.bits < 64) return undefined;
    }
    this.integersBecomePointers = true;
    return this.unknownAddress;
  }

  /**
   * Once per module: when some integer of unknown origin becomes a pointer, every address the
   * program turned into an integer may be it, so it escapes. A module without such a conversion
   * (most: pointer differences, alignment checks and hashes never come back) keeps them.
   */
  escapeAddressIntegers(): void {
    if (!this.integersBecomePointers) return;
    for (const node of this.addressIntegers) this.b.copy(this.unknown, node);
    for (const value of this.module.integerAddresses ?? []) {
      const node = this.valueNode(value);
      if (node !== undefined) this.b.copy(this.unknown, node);
    }
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

  sourceLine(instruction: IrInstruction): number | undefined {
    return instruction.dbg === undefined ? undefined : this.module.debugLines.get(instruction.dbg);
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
    this.offsetsInto(
      result,
      base,
      Array.from({ length: this.largest }, (_, k) => k),
    );
  }

  /**
   * `result = base + k` for each of `offsets`. Many offsets from one base (an element step, a
   * pointer anywhere into an object) are built once per base, offsets and module, and copied:
   * the same sets with one constraint per further use instead of one per offset.
   */
  offsetsInto(result: number, base: number, offsets: readonly number[]): void {
    if (offsets.length <= 2) {
      for (const offset of offsets) this.offsetInto(result, base, offset);
      return;
    }
    const key = `${base} ${offsets[0]} ${(offsets[1] as number) - (offsets[0] as number)} ${offsets.length}`;
    let shared = this.sharedOffsets.get(key);
    if (shared === undefined) {
      shared = this.b.variable();
      for (const offset of offsets) this.offsetInto(shared, base, offset);
      this.sharedOffsets.set(key, shared);
    }
    this.b.copy(result, shared);
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
export function globalName(value: IrValue): string | undefined {
  if (value.kind === 'global') return value.name;
  if (value.kind === 'cast') return globalName(value.operand.value);
  return undefined;
}

export function stripSigil(name: string): string {
  let plain = name.startsWith('@') ? name.slice(1) : name;
  if (plain.startsWith('"') && plain.endsWith('"')) plain = plain.slice(1, -1);
  return plain;
}

/** The called function's name for a direct call (possibly through a constant cast), else undefined. */
export function directCallee(callee: IrValue): string | undefined {
  if (callee.kind === 'global') return callee.name;
  if (callee.kind === 'cast') return directCallee(callee.operand.value);
  return undefined;
}
