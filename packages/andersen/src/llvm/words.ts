/**
 * The LLVM assembly words the reader knows: cast operators, constants, linkage and call flags,
 * instructions that never yield a pointer, and how tokens start types and values.
 *
 * @module
 */
import type { IrType, IrValue } from './ir';
import { type Token, TokenKind } from './lexer';

export const VOID: IrType = { kind: 'void' };
export const PTR: IrType = { kind: 'ptr' };
export const EMPTY: IrValue = { kind: 'empty' };

export const CAST_OPS = new Set([
  'bitcast',
  'addrspacecast',
  'ptrtoint',
  'inttoptr',
  'trunc',
  'zext',
  'sext',
  'fptrunc',
  'fpext',
  'fptoui',
  'fptosi',
  'uitofp',
  'sitofp',
]);
export const CONSTANT_WORDS = new Set([
  'null',
  'undef',
  'poison',
  'zeroinitializer',
  'none',
  'true',
  'false',
]);
/** Parameter/return attributes that take one following integer (`align 8`). */
export const ATTRIBUTES_WITH_INTEGER = new Set(['align', 'addrspace']);
/** Module-level entities the front end does not need; their whole (balanced) text is skipped. */
export const SKIPPED_TOP_LEVEL = new Set([
  'source_filename',
  'target',
  'attributes',
  'module',
  'uselistorder',
  'uselistorder_bb',
]);
export const LINKAGE_AND_FLAGS = new Set([
  'private',
  'internal',
  'external',
  'available_externally',
  'linkonce',
  'linkonce_odr',
  'weak',
  'weak_odr',
  'common',
  'appending',
  'extern_weak',
  'dso_local',
  'dso_preemptable',
  'default',
  'hidden',
  'protected',
  'dllimport',
  'dllexport',
  'unnamed_addr',
  'local_unnamed_addr',
  'externally_initialized',
  'thread_local',
  'addrspace',
]);
/** Words that may stand between `call` and the callee's type. */
export const CALL_PREFIX_WORDS = new Set([
  'fast',
  'nnan',
  'ninf',
  'nsz',
  'arcp',
  'contract',
  'afn',
  'reassoc',
  'cc',
  'ccc',
  'fastcc',
  'coldcc',
  'tailcc',
  'swiftcc',
  'swifttailcc',
  'cfguard_checkcc',
  'preserve_mostcc',
  'preserve_allcc',
  'x86_stdcallcc',
  'x86_fastcallcc',
  'x86_thiscallcc',
  'x86_vectorcallcc',
  'x86_64_sysvcc',
  'win64cc',
  'webkit_jscc',
  'anyregcc',
  'ghccc',
]);

export function isTypeStart(token: Token): boolean {
  if (token.kind === TokenKind.Local) return true;
  if (token.kind === TokenKind.Punct) return token.text === '{' || token.text === '[' || token.text === '<';
  if (token.kind !== TokenKind.Word) return false;
  return (
    /^i\d+$/.test(token.text) ||
    [
      'void',
      'ptr',
      'half',
      'bfloat',
      'float',
      'double',
      'fp128',
      'x86_fp80',
      'ppc_fp128',
      'x86_mmx',
      'x86_amx',
      'label',
      'metadata',
      'token',
      'opaque',
      'target',
    ].includes(token.text)
  );
}

/** Words that start a value: constants and constant expressions. */
export function isValueWord(word: string): boolean {
  return (
    CONSTANT_WORDS.has(word) ||
    CAST_OPS.has(word) ||
    isConstantExpressionWord(word) ||
    ['getelementptr', 'blockaddress', 'dso_local_equivalent', 'no_cfi', 'asm', 'splat'].includes(word)
  );
}

/** Instructions whose result is never a pointer. */
export const NON_POINTER_OPS = new Set([
  'add',
  'sub',
  'mul',
  'udiv',
  'sdiv',
  'urem',
  'srem',
  'fadd',
  'fsub',
  'fmul',
  'fdiv',
  'frem',
  'fneg',
  'shl',
  'lshr',
  'ashr',
  'and',
  'or',
  'xor',
  'icmp',
  'fcmp',
  'br',
  'switch',
  'indirectbr',
  'unreachable',
  'resume',
  'fence',
  'catchpad',
  'cleanuppad',
  'catchswitch',
  'catchret',
  'cleanupret',
]);

/** Opcodes that may open a constant expression (`add (i64 …)`, `icmp eq (…)`, `select (…)`). */
const CONSTANT_EXPRESSION_WORDS: ReadonlySet<string> = new Set([
  'add',
  'sub',
  'mul',
  'shl',
  'lshr',
  'ashr',
  'and',
  'or',
  'xor',
  'icmp',
  'fcmp',
  'extractelement',
  'insertelement',
  'shufflevector',
  'select',
  'trunc',
]);

export function isConstantExpressionWord(word: string): boolean {
  return CONSTANT_EXPRESSION_WORDS.has(word);
}

export function describe(token: Token): string {
  if (token.kind === TokenKind.End) return 'the end of the input';
  if (token.kind === TokenKind.String) return `"${token.text}"`;
  return `'${token.text}'`;
}
