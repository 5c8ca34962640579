/**
 * The aliasing-fact functions of SVF's test suite (PTABen): a test program calls them with two
 * pointers to state what a sound and precise analysis must answer.
 *
 * @module
 */

/** Kinds of aliasing facts, as the functions are named. */
export const ALIAS_CHECK_KINDS = [
  'MAYALIAS',
  'NOALIAS',
  'MUSTALIAS',
  'PARTIALALIAS',
  'EXPECTEDFAIL_MAYALIAS',
  'EXPECTEDFAIL_NOALIAS',
] as const;

/** One of {@link ALIAS_CHECK_KINDS}. */
export type AliasCheckKind = (typeof ALIAS_CHECK_KINDS)[number];

/**
 * The check kind a function name stands for — plain (`MAYALIAS`) or C++-mangled
 * (`_Z8MAYALIASPvS_`) — or undefined.
 *
 * @example
 * ```ts
 * aliasCheckKind('_Z7NOALIASPvS_'); // 'NOALIAS'
 * aliasCheckKind('printf'); // undefined
 * ```
 */
export function aliasCheckKind(name: string): AliasCheckKind | undefined {
  const mangled = /^_Z(\d+)/.exec(name);
  const plain = mangled ? name.slice(mangled[0].length, mangled[0].length + Number(mangled[1])) : name;
  return (ALIAS_CHECK_KINDS as readonly string[]).includes(plain) ? (plain as AliasCheckKind) : undefined;
}

/**
 * Whether a check passes given the analysis's answer, by PTABen's rules: MAY, MUST and PARTIAL
 * pass on may-alias (soundness), NOALIAS on no-alias (precision), the EXPECTEDFAIL forms on the
 * opposite answer (known imprecision).
 *
 * @example
 * ```ts
 * aliasCheckPasses('NOALIAS', false); // true
 * aliasCheckPasses('EXPECTEDFAIL_NOALIAS', true); // true
 * ```
 */
export function aliasCheckPasses(kind: AliasCheckKind, mayAlias: boolean): boolean {
  switch (kind) {
    case 'MAYALIAS':
    case 'MUSTALIAS':
    case 'PARTIALALIAS':
    case 'EXPECTEDFAIL_NOALIAS':
      return mayAlias;
    case 'NOALIAS':
    case 'EXPECTEDFAIL_MAYALIAS':
      return !mayAlias;
  }
}
