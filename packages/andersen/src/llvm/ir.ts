/**
 * The part of LLVM IR that the points-to front end reads: types, constants, globals, functions and
 * the instructions that move pointers. Everything else is parsed and dropped.
 *
 * @module
 */

/** An LLVM type; named structs stay by name until the module's definitions are known. */
export type IrType =
  | { readonly kind: 'int'; readonly bits: number }
  | { readonly kind: 'float'; readonly bits: number }
  | { readonly kind: 'void' }
  | { readonly kind: 'ptr' }
  | { readonly kind: 'struct'; readonly fields: readonly IrType[]; readonly packed: boolean }
  | { readonly kind: 'named'; readonly name: string }
  | { readonly kind: 'array'; readonly length: number; readonly element: IrType }
  | { readonly kind: 'vector'; readonly length: number; readonly element: IrType }
  | {
      readonly kind: 'function';
      readonly result: IrType;
      readonly params: readonly IrType[];
      readonly varargs: boolean;
    }
  | { readonly kind: 'label' | 'metadata' | 'token' | 'opaque' | 'other' };

/** A value as an operand. */
export type IrValue =
  | { readonly kind: 'local'; readonly name: string }
  | { readonly kind: 'global'; readonly name: string }
  /** null, undef, poison, zeroinitializer, none, strings, floats: no pointer target. */
  | { readonly kind: 'empty' }
  /** An integer literal (GEP indices need the value; it is no pointer target either). */
  | { readonly kind: 'int'; readonly value: number }
  | { readonly kind: 'aggregate'; readonly elements: readonly IrTypedValue[] }
  | {
      readonly kind: 'gep';
      readonly sourceType: IrType;
      readonly base: IrTypedValue;
      readonly indices: readonly IrTypedValue[];
    }
  /** bitcast, addrspacecast, and other casts that keep the pointer. */
  | { readonly kind: 'cast'; readonly op: string; readonly operand: IrTypedValue; readonly to: IrType }
  /** inline asm, blockaddress, dso_local_equivalent, no_cfi and the like. */
  /**
   * What the analysis does not look into: inline assembly, block addresses, metadata. A metadata
   * node keeps its id (`!12`), and a value wrapped as metadata (`metadata ptr %x`, the first
   * operand of a debug record) keeps the value.
   */
  | {
      readonly kind: 'opaque';
      readonly what: string;
      readonly id?: string | undefined;
      readonly wrapped?: IrTypedValue | undefined;
    };

/** A value with its type. */
export interface IrTypedValue {
  readonly type: IrType;
  readonly value: IrValue;
}

/** Where an instruction is: its line in the `.ll` file and, with debug info, in the source. */
export interface IrLocation {
  readonly irLine: number;
  /** `!dbg` attachment id, resolved to a source line by the module's DILocation table. */
  readonly dbg?: string | undefined;
}

/** An instruction the front end models; others with a pointer result are `other`. */
export type IrInstruction = IrLocation &
  (
    | { readonly op: 'alloca'; readonly result: string; readonly allocated: IrType }
    | { readonly op: 'load'; readonly result: string; readonly type: IrType; readonly pointer: IrTypedValue }
    | { readonly op: 'store'; readonly value: IrTypedValue; readonly pointer: IrTypedValue }
    | {
        readonly op: 'getelementptr';
        readonly result: string;
        readonly sourceType: IrType;
        readonly base: IrTypedValue;
        readonly indices: readonly IrTypedValue[];
      }
    | {
        readonly op: 'cast';
        readonly name: string;
        readonly result: string;
        readonly operand: IrTypedValue;
        readonly to: IrType;
      }
    | {
        readonly op: 'phi';
        readonly result: string;
        readonly type: IrType;
        readonly incoming: readonly IrValue[];
      }
    | {
        readonly op: 'select';
        readonly result: string;
        readonly type: IrType;
        readonly choices: readonly IrTypedValue[];
      }
    | {
        readonly op: 'call';
        readonly result: string | undefined;
        readonly resultType: IrType;
        readonly callee: IrValue;
        readonly args: readonly IrTypedValue[];
      }
    | { readonly op: 'ret'; readonly value: IrTypedValue | undefined }
    | {
        readonly op: 'extractvalue';
        readonly result: string;
        readonly aggregate: IrTypedValue;
      }
    | {
        readonly op: 'insertvalue';
        readonly result: string;
        readonly aggregate: IrTypedValue;
        readonly element: IrTypedValue;
      }
    | { readonly op: 'va_arg'; readonly result: string; readonly list: IrTypedValue; readonly type: IrType }
    /** atomicrmw xchg and cmpxchg on pointers: a load and a store through `pointer`. */
    | {
        readonly op: 'atomic';
        readonly result: string;
        readonly pointer: IrTypedValue;
        readonly stored: IrTypedValue;
        readonly type: IrType;
      }
    | {
        readonly op: 'other';
        readonly name: string;
        readonly result: string | undefined;
        readonly type: IrType | undefined;
        /** The operands of integer `add`, `sub`, `mul`, `shl`, `sdiv`, `ashr`, `or`, `xor` (others: none kept). */
        readonly operands?: readonly IrValue[];
      }
  );

/** A function definition or declaration. */
export interface IrFunction {
  readonly name: string;
  readonly type: IrType & { kind: 'function' };
  readonly paramNames: readonly (string | undefined)[];
  readonly isDeclaration: boolean;
  readonly instructions: readonly IrInstruction[];
  readonly line: number;
  /** How the name links across modules (see {@link IrLinkage}); `external` when none is written. */
  readonly linkage?: IrLinkage | undefined;
}

/**
 * How a symbol links: `local` (internal, private: one per module), `discardable` (linkonce,
 * weak, common, available_externally: copies of one definition, any may be kept) or `external`.
 */
export type IrLinkage = 'local' | 'discardable' | 'external';

/** A global variable (or an alias of another global). */
export interface IrGlobal {
  readonly name: string;
  readonly valueType: IrType;
  readonly initializer: IrTypedValue | undefined;
  readonly isConstant: boolean;
  /** `@a = alias T, ptr @b`: a name for another global's address. */
  readonly aliasee?: IrTypedValue | undefined;
  readonly line: number;
  readonly linkage?: IrLinkage | undefined;
  /**
   * A vtable's type metadata (`!type !{i64 16, !"_ZTS5Shape"}`, clang's `-fwhole-program-vtables`
   * and `-fsanitize=cfi`): at byte `byte` starts a vtable compatible with the class `type` (the
   * type's string as written, `!"_ZTS5Shape"`, or a `!N` node for a class of internal linkage).
   */
  readonly vtableTypes?: readonly { readonly byte: number; readonly type: string }[] | undefined;
}

/** A parsed module. */
export interface IrModule {
  readonly file: string;
  readonly types: ReadonlyMap<string, IrType>;
  readonly globals: readonly IrGlobal[];
  readonly functions: readonly IrFunction[];
  /** `!N` → source line, from `!N = !DILocation(line: L, …)`. */
  readonly debugLines: ReadonlyMap<string, number>;
  /** `!N` → a source variable, from `!N = !DILocalVariable(name: "p", …, line: L, …)`. */
  readonly debugVariables?: ReadonlyMap<string, { readonly name: string; readonly line: number | undefined }>;
  /** Bytes of IR text. */
  readonly size: number;
  /** Globals whose address a constant expression turns into an integer (`ptrtoint (ptr @g to i64)`). */
  readonly integerAddresses?: readonly IrValue[] | undefined;
}
