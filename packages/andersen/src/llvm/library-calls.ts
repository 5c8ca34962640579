import { aliasCheckKind } from './alias-checks';
import type { IrFunction, IrInstruction } from './ir';
import {
  ALLOCATES_INTO_FIRST,
  CALLS_BACK,
  type CallbackArgument,
  NO_POINTER_EFFECT,
  RETURNS_ARGUMENT,
  RETURNS_FIRST_ARGUMENT,
  RETURNS_LIBRARY_MEMORY,
  RETURNS_UNKNOWN_ONLY,
  SCANS_INTO_ARGUMENTS,
  STORES_FIRST_INTO_SECOND,
} from './summaries';
import { FIRST_PARAM_FIELD, ModuleValues, stripSigil } from './values';

/**
 * Calls of functions the module does not define: the aliasing-fact checks, allocators, the
 * library functions of `summaries.ts`, `llvm.*` intrinsics, and unknown functions.
 */
export abstract class LibraryCalls extends ModuleValues {
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
    if (RETURNS_LIBRARY_MEMORY.has(name)) {
      if (result !== undefined) b.copy(result, this.libraryMemory(name));
      return;
    }
    if (name === 'putenv') {
      // The environment getenv returns now holds the program's string (getenv gives `s + k`).
      if (args[0] !== undefined) this.anywhereFrom(this.libraryMemory('getenv'), args[0]);
      return;
    }
    if (RETURNS_UNKNOWN_ONLY.has(name)) {
      if (result !== undefined) b.copy(result, this.unknownAddress);
      return;
    }
    if (name === 'realpath' || name === 'getcwd' || name === 'mremap') {
      // realpath(path, resolved), getcwd(buf, n): that buffer, or a new block when it is NULL;
      // mremap(old, …): the mapping, moved or not.
      if (result === undefined) return;
      const given = args[name === 'realpath' ? 1 : 0];
      if (given !== undefined) b.copy(result, given);
      b.addressOf(result, this.heapObject(f, i, name));
      return;
    }
    if (name === 'backtrace_symbols') {
      // A new block: an array of pointers to strings inside the same block.
      if (result === undefined) return;
      const heap = this.heapObject(f, i, name);
      b.addressOf(result, heap);
      b.store(result, result);
      return;
    }
    const scanned = SCANS_INTO_ARGUMENTS.get(name);
    if (scanned !== undefined) {
      for (const arg of args.slice(scanned)) if (arg !== undefined) b.store(arg, this.unknownAddress);
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
   * The address of the memory a library function returns ({@link RETURNS_LIBRARY_MEMORY}): one
   * object per function (`<memory of getenv>`), every field pointing to its start, made on first use.
   */
  libraryMemory(name: string): number {
    const known = this.libraryObjects.get(name === 'secure_getenv' ? 'getenv' : name);
    if (known !== undefined) return known;
    const label = `<memory of ${name === 'secure_getenv' ? 'getenv' : name}>`;
    const object = this.b.object(label, { fields: this.largest });
    this.objectNames.set(object, label);
    const address = this.b.variable(`&${label}`);
    this.b.addressOf(address, object);
    for (let k = 0; k < this.largest; k++) this.b.addressOf(object + k, object);
    this.libraryObjects.set(name === 'secure_getenv' ? 'getenv' : name, address);
    return address;
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
}
