/**
 * fast-check arbitraries for the fuzzer's inputs: a seed text changed by a short list of edits
 * (replace a character, insert a token of the language, delete or repeat a stretch, cut the end,
 * write a long number), so most inputs stay near the language and reach past the lexer. Repeats
 * build deep nesting and long inputs; shrinking removes edits, so a failure shrinks to few.
 * @module
 */
import fc from 'fast-check';

/** One edit, at a position given as a fraction of the text's length. */
export type Edit =
  | { readonly op: 'replace'; readonly at: number; readonly char: string }
  | { readonly op: 'insert'; readonly at: number; readonly token: string }
  | { readonly op: 'delete'; readonly at: number; readonly length: number }
  | { readonly op: 'repeat'; readonly at: number; readonly length: number; readonly times: number }
  | { readonly op: 'truncate'; readonly at: number }
  | { readonly op: 'number'; readonly at: number; readonly digits: number };

/** Characters a replacement draws from: ASCII, controls, and a few multi-byte ones. */
const CHARS = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('\n', '\t', '\r', '\0', '\u00e9', '\u{1f600}', '\ufeff', '\u2028'),
);

function editArb(dictionary: readonly string[]): fc.Arbitrary<Edit> {
  const at = fc.double({ min: 0, max: 1, noNaN: true });
  return fc.oneof(
    fc.record({ op: fc.constant('replace' as const), at, char: CHARS }),
    fc.record({ op: fc.constant('insert' as const), at, token: fc.constantFrom(...dictionary) }),
    fc.record({ op: fc.constant('delete' as const), at, length: fc.integer({ min: 1, max: 40 }) }),
    fc.record({
      op: fc.constant('repeat' as const),
      at,
      length: fc.integer({ min: 1, max: 30 }),
      times: fc.integer({ min: 2, max: 400 }),
    }),
    fc.record({ op: fc.constant('truncate' as const), at }),
    fc.record({ op: fc.constant('number' as const), at, digits: fc.integer({ min: 1, max: 80 }) }),
  );
}

/** Applies `edit` to `text`. */
export function applyEdit(text: string, edit: Edit): string {
  const i = Math.min(text.length, Math.floor(edit.at * (text.length + 1)));
  switch (edit.op) {
    case 'replace':
      return text.slice(0, i) + edit.char + text.slice(i + 1);
    case 'insert':
      return text.slice(0, i) + edit.token + text.slice(i);
    case 'delete':
      return text.slice(0, i) + text.slice(i + edit.length);
    case 'repeat':
      return text.slice(0, i) + text.slice(i, i + edit.length).repeat(edit.times) + text.slice(i);
    case 'truncate':
      return text.slice(0, i);
    case 'number':
      return `${text.slice(0, i)}${'9'.repeat(edit.digits)}${text.slice(i)}`;
  }
}

/** A seed changed by 1–6 edits (the seed itself is never produced: each case is a mutation). */
export function mutatedText(seeds: readonly string[], dictionary: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...seeds), fc.array(editArb(dictionary), { minLength: 1, maxLength: 6 }))
    .map(([seed, edits]) => edits.reduce(applyEdit, seed));
}
