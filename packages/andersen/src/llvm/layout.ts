import type { IrModule, IrType, IrTypedValue, IrValue } from './ir';

/** A pointer-valued leaf of a constant: its byte offset in the constant and the value. */
export interface ConstantLeaf {
  readonly byte: number;
  readonly value: IrValue;
}

/**
 * The types of a module as the Andersen model sees them: structs flattened to one field per
 * scalar (nested structs included), arrays collapsed to one element, and the x86-64 byte layout
 * (System V: natural alignment, packed structs unpadded) to match byte offsets to fields.
 *
 * @example
 * ```ts
 * const layout = new TypeLayout(module);
 * layout.flatSize({ kind: 'named', name: '%struct.S' }); // 3 for { i32, ptr, ptr }
 * layout.fieldAtByte({ kind: 'named', name: '%struct.S' }, 8); // 1
 * ```
 */
export class TypeLayout {
  readonly #module: IrModule;
  readonly #flatSizes = new Map<IrType, number>();
  #namedBySize: Map<number, IrType[]> | undefined;

  constructor(module: IrModule) {
    this.#module = module;
  }

  resolve(type: IrType): IrType {
    let t = type;
    for (let hops = 0; t.kind === 'named' && hops < 64; hops++)
      t = this.#module.types.get(t.name) ?? { kind: 'opaque' };
    return t;
  }

  /** Fields of a type once structs are flattened and arrays collapsed to one element. */
  flatSize(type: IrType): number {
    const known = this.#flatSizes.get(type);
    if (known !== undefined) return known;
    this.#flatSizes.set(type, 1); // a cycle through a named struct (only possible by value: invalid IR) stops here
    const t = this.resolve(type);
    let size = 1;
    if (t.kind === 'struct')
      size = Math.max(
        1,
        t.fields.reduce((sum, f) => sum + this.flatSize(f), 0),
      );
    else if (t.kind === 'array' || t.kind === 'vector') size = this.flatSize(t.element);
    this.#flatSizes.set(type, size);
    return size;
  }

  /** Whether a type is an integer, or a vector of integers, as wide as a pointer or wider. */
  isWideInteger(type: IrType): boolean {
    const t = this.resolve(type);
    if (t.kind === 'int') return t.bits >= 64;
    if (t.kind !== 'vector') return false;
    const element = this.resolve(t.element);
    return element.kind === 'int' && element.bits * t.length >= 64;
  }

  /** Whether values of the type can carry a pointer. */
  carriesPointer(type: IrType): boolean {
    const t = this.resolve(type);
    switch (t.kind) {
      case 'ptr':
        return true;
      case 'struct':
        return t.fields.some((f) => this.carriesPointer(f));
      case 'array':
      case 'vector':
        return this.carriesPointer(t.element);
      default:
        return false;
    }
  }

  /** Flattened field offset addressed by a GEP's indices after the first (which steps over whole elements). */
  fieldOffset(sourceType: IrType, indices: readonly IrTypedValue[]): number {
    let type = sourceType;
    let offset = 0;
    for (let i = 1; i < indices.length; i++) {
      const t = this.resolve(type);
      if (t.kind === 'struct') {
        const index = (indices[i] as IrTypedValue).value;
        const field = index.kind === 'int' ? index.value : 0;
        for (let k = 0; k < field && k < t.fields.length; k++) offset += this.flatSize(t.fields[k] as IrType);
        type = t.fields[field] ?? { kind: 'other' };
      } else if (t.kind === 'array' || t.kind === 'vector') {
        type = t.element; // every element is the same abstract location
      } else break;
    }
    return offset;
  }

  /** The byte offset a GEP's indices reach, all of them constant (undefined otherwise). */
  byteOffsetOf(sourceType: IrType, indices: readonly IrTypedValue[]): number | undefined {
    let type = sourceType;
    let offset = 0;
    for (let i = 0; i < indices.length; i++) {
      const index = (indices[i] as IrTypedValue).value;
      if (index.kind !== 'int') return undefined;
      if (i === 0) {
        offset += index.value * this.byteLayout(type).size;
        continue;
      }
      const t = this.resolve(type);
      if (t.kind === 'struct') {
        offset += this.fieldBytes(t)[index.value] ?? 0;
        type = t.fields[index.value] ?? { kind: 'other' };
      } else if (t.kind === 'array' || t.kind === 'vector') {
        offset += index.value * this.byteLayout(t.element).size;
        type = t.element;
      } else return undefined;
    }
    return offset;
  }

  /** The type a GEP's indices end at (undefined when they run into a scalar). */
  indexedType(sourceType: IrType, indices: readonly IrTypedValue[]): IrType | undefined {
    let type = sourceType;
    for (let i = 1; i < indices.length; i++) {
      const t = this.resolve(type);
      if (t.kind === 'struct') {
        const index = (indices[i] as IrTypedValue).value;
        const next = index.kind === 'int' ? t.fields[index.value] : undefined;
        if (next === undefined) return undefined;
        type = next;
      } else if (t.kind === 'array' || t.kind === 'vector') type = t.element;
      else return undefined;
    }
    return type;
  }

  /** Whether a GEP's last index selects an array (or vector) element. */
  endsInArray(sourceType: IrType, indices: readonly IrTypedValue[]): boolean {
    if (indices.length < 2) return false;
    const parent = this.indexedType(sourceType, indices.slice(0, -1));
    const t = parent === undefined ? undefined : this.resolve(parent);
    return t?.kind === 'array' || t?.kind === 'vector';
  }

  /** Byte size and alignment on x86-64 (the System V ABI that clang's default target uses). */
  byteLayout(type: IrType): { size: number; align: number } {
    const t = this.resolve(type);
    switch (t.kind) {
      case 'int': {
        const bytes = t.bits <= 8 ? 1 : t.bits <= 16 ? 2 : t.bits <= 32 ? 4 : t.bits <= 64 ? 8 : 16;
        return { size: bytes, align: bytes };
      }
      case 'ptr':
        return { size: 8, align: 8 };
      case 'float':
        return { size: t.bits / 8, align: t.bits / 8 };
      case 'struct': {
        let size = 0;
        let align = 1;
        for (const field of t.fields) {
          const layout = this.byteLayout(field);
          const fieldAlign = t.packed ? 1 : layout.align;
          size = Math.ceil(size / fieldAlign) * fieldAlign + layout.size;
          align = Math.max(align, fieldAlign);
        }
        return { size: Math.ceil(size / align) * align, align };
      }
      case 'array':
      case 'vector': {
        const element = this.byteLayout(t.element);
        return { size: element.size * t.length, align: element.align };
      }
      default:
        return { size: 1, align: 1 };
    }
  }

  /** Byte offset of each field of a struct. */
  fieldBytes(t: IrType & { kind: 'struct' }): number[] {
    const offsets: number[] = [];
    let offset = 0;
    for (const field of t.fields) {
      const layout = this.byteLayout(field);
      if (!t.packed) offset = Math.ceil(offset / layout.align) * layout.align;
      offsets.push(offset);
      offset += layout.size;
    }
    return offsets;
  }

  /** The flattened field holding byte `byte` of a value of `type`, or undefined past its end. */
  fieldAtByte(type: IrType, byte: number): number | undefined {
    const t = this.resolve(type);
    if (t.kind === 'struct') {
      const offsets = this.fieldBytes(t);
      let flat = 0;
      for (let k = 0; k < t.fields.length; k++) {
        const field = t.fields[k] as IrType;
        const offset = offsets[k] as number;
        // A byte of the padding before a field counts as the field's.
        if (byte < offset + this.byteLayout(field).size) {
          const inner = this.fieldAtByte(field, byte - offset);
          return inner === undefined ? undefined : flat + inner;
        }
        flat += this.flatSize(field);
      }
      return undefined;
    }
    if (t.kind === 'array' || t.kind === 'vector') {
      const size = this.byteLayout(t.element).size;
      return size === 0 ? 0 : this.fieldAtByte(t.element, byte % size);
    }
    return byte < this.byteLayout(t).size ? 0 : undefined;
  }

  /** Whether a pointer scalar starts exactly at `byte` of a value of `type`. */
  pointerAtByte(type: IrType, byte: number): boolean {
    const t = this.resolve(type);
    if (t.kind === 'ptr') return byte === 0;
    if (t.kind === 'struct') {
      const offsets = this.fieldBytes(t);
      for (let k = 0; k < t.fields.length; k++) {
        const field = t.fields[k] as IrType;
        const offset = offsets[k] as number;
        if (byte >= offset && byte < offset + this.byteLayout(field).size)
          return this.pointerAtByte(field, byte - offset);
      }
      return false;
    }
    if (t.kind === 'array' || t.kind === 'vector') {
      const size = this.byteLayout(t.element).size;
      return size > 0 && this.pointerAtByte(t.element, byte % size);
    }
    return false;
  }

  /** The pointer-capable leaves of a constant, each with its byte offset in the constant. */
  constantLeaves(constant: IrTypedValue, byte = 0, into: ConstantLeaf[] = []): ConstantLeaf[] {
    const t = this.resolve(constant.type);
    const value = constant.value;
    if (value.kind === 'aggregate' && (t.kind === 'struct' || t.kind === 'array' || t.kind === 'vector')) {
      const offsets =
        t.kind === 'struct'
          ? this.fieldBytes(t)
          : value.elements.map((_, k) => k * this.byteLayout(t.element).size);
      value.elements.forEach((element, k) => {
        this.constantLeaves(element, byte + (offsets[k] as number), into);
      });
      return into;
    }
    if (value.kind !== 'empty' && value.kind !== 'int' && value.kind !== 'opaque') into.push({ byte, value });
    return into;
  }

  /**
   * The layouts through which a global of this type may be read. A named type is read as itself.
   * A literal struct is how clang writes a constant initializer whose type differs from the
   * variable's declared struct (clang 19+ gives padding explicit fields, `{ i32, [4 x i8], ptr }`
   * for `struct { int; void *; }`; unions take their initialized member's shape), so the code
   * reads it through a named struct of the same byte size: every named struct of that size with a
   * pointer at each byte where the constant has one, and the literal itself. Arrays are seen
   * through their element.
   */
  readingViews(type: IrType, leaves: readonly ConstantLeaf[]): IrType[] {
    let unit = type;
    for (let t = this.resolve(unit); t.kind === 'array' || t.kind === 'vector'; t = this.resolve(unit))
      unit = t.element;
    if (unit.kind !== 'struct') return [type];
    const size = this.byteLayout(unit).size;
    if (this.#namedBySize === undefined) {
      this.#namedBySize = new Map();
      for (const name of this.#module.types.keys()) {
        const named: IrType = { kind: 'named', name };
        if (this.resolve(named).kind !== 'struct') continue;
        const bytes = this.byteLayout(named).size;
        const list = this.#namedBySize.get(bytes) ?? [];
        list.push(named);
        this.#namedBySize.set(bytes, list);
      }
    }
    const candidates = (this.#namedBySize.get(size) ?? []).filter((named) =>
      leaves.every((leaf) => size === 0 || this.pointerAtByte(named, leaf.byte % size)),
    );
    return [unit, ...candidates];
  }
}

/** Whether a global is a C++ vtable (`_ZTV…`) or construction vtable (`_ZTC…`): its slots are kept apart. */
export function isVtable(name: string): boolean {
  return /^@"?_ZT[VC]/.test(name);
}
