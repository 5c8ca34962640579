/**
 * R7RS libraries: `import` and `define-library`. Standard libraries (`(scheme …)`, `(srfi …)`, and
 * the other implementations' own) need nothing: their procedures are the front end's primitives
 * and prelude. A user library's `begin` bodies and `include`d files are spliced into the program's
 * top level where it is defined or first imported; its `export` list is not enforced (a program
 * that defines a name its library also defines assigns it). A library in another file comes from
 * the caller's {@link LibraryResolver} (the CLI reads `name/parts.sld` or `.scm` beside the program).
 * @module
 */
import { SchemeSyntaxError, type SourcePos } from '../errors';
import { type Datum, datumToString, readScheme } from './reader';

/** A library's source: the text of a file holding its `define-library`, or of an `include`d file. */
export interface LibrarySource {
  readonly text: string;
  /** Named in positions. */
  readonly file: string;
}

/**
 * Finds the source of a library (`['my', 'lib']` for `(my lib)`) or of an `include`d file
 * (`{ include: 'file.scm' }`), relative to the file that names it; undefined when there is none.
 */
export type LibraryResolver = (
  request: { readonly library: readonly string[] } | { readonly include: string },
  from: string,
) => LibrarySource | undefined;

const STANDARD = new Set([
  'scheme',
  'srfi',
  'rnrs',
  'chibi',
  'gauche',
  'chicken',
  'racket',
  'mit',
  'guile',
  'larceny',
  'sagittarius',
  'kawa',
  'gambit',
  'cyclone',
  'chez',
  'r7rs',
  'r6rs',
]);

const isList = (d: Datum | undefined): d is Extract<Datum, { t: 'list' }> =>
  d !== undefined && d.t === 'list';
const isSym = (d: Datum | undefined, name?: string): d is Extract<Datum, { t: 'sym' }> =>
  d !== undefined && d.t === 'sym' && (name === undefined || d.name === name);

/** The name of an import set: `(only (a b) x)` → `['a', 'b']`. */
function importedName(set: Datum): { name: string[]; pos: SourcePos } | undefined {
  let d: Datum | undefined = set;
  while (
    isList(d) &&
    isSym(d.items[0]) &&
    ['only', 'except', 'prefix', 'rename'].includes(d.items[0].name) &&
    isList(d.items[1])
  )
    d = d.items[1];
  if (!isList(d)) return undefined;
  return {
    name: d.items.map((x) => (x.t === 'sym' ? x.name : x.t === 'num' ? x.text : datumToString(x, 40))),
    pos: d.pos,
  };
}

/** Expands `import` and `define-library` forms of a body into the forms they stand for. */
export class Libraries {
  readonly #resolve: LibraryResolver | undefined;
  /** Libraries whose bodies are in the program already, by name. */
  readonly #loaded = new Set<string>();

  constructor(resolve: LibraryResolver | undefined) {
    this.#resolve = resolve;
  }

  /** The forms `(import set …)` stands for: the bodies of user libraries not loaded yet. */
  importForms(d: Extract<Datum, { t: 'list' }>): Datum[] {
    const out: Datum[] = [];
    for (const set of d.items.slice(1)) {
      const imported = importedName(set);
      if (imported === undefined)
        throw new SchemeSyntaxError(set.pos, `import: bad import set ${datumToString(set, 60)}`);
      const key = imported.name.join(' ');
      if (STANDARD.has(imported.name[0] as string) || this.#loaded.has(key)) continue;
      const source = this.#resolve?.({ library: imported.name }, imported.pos.file);
      if (source === undefined)
        throw new SchemeSyntaxError(imported.pos, `import: library (${key}) not found`);
      const library = readScheme(source.text, source.file).find(
        (f) =>
          isList(f) &&
          isSym(f.items[0], 'define-library') &&
          importedName(f.items[1] as Datum)?.name.join(' ') === key,
      );
      if (library === undefined)
        throw new SchemeSyntaxError(imported.pos, `import: ${source.file} does not define library (${key})`);
      out.push(...this.libraryForms(library as Extract<Datum, { t: 'list' }>));
    }
    return out;
  }

  /** The forms `(define-library name declaration …)` stands for. */
  libraryForms(d: Extract<Datum, { t: 'list' }>): Datum[] {
    const name = isList(d.items[1]) ? importedName(d.items[1]) : undefined;
    if (name === undefined)
      throw new SchemeSyntaxError(d.pos, 'define-library: expected (define-library (name …) declaration …)');
    const key = name.name.join(' ');
    if (this.#loaded.has(key)) return [];
    this.#loaded.add(key);
    const out: Datum[] = [];
    this.#declarations(d.items.slice(2), out);
    return out;
  }

  #declarations(decls: readonly Datum[], out: Datum[]): void {
    for (const decl of decls) {
      if (!isList(decl) || !isSym(decl.items[0]))
        throw new SchemeSyntaxError(decl.pos, 'define-library: bad declaration');
      switch (decl.items[0].name) {
        case 'export':
          break;
        case 'import':
          out.push(...this.importForms(decl));
          break;
        case 'begin':
          out.push(...decl.items.slice(1));
          break;
        case 'include':
        case 'include-ci':
          for (const f of decl.items.slice(1)) {
            if (f.t !== 'str') throw new SchemeSyntaxError(f.pos, 'include: expected a file name');
            const source = this.#resolve?.({ include: f.value }, f.pos.file);
            if (source === undefined) throw new SchemeSyntaxError(f.pos, `include: "${f.value}" not found`);
            out.push(...readScheme(source.text, source.file));
          }
          break;
        case 'cond-expand': {
          // The `else` clause if there is one, else the first (the front end is no implementation).
          const clauses = decl.items.slice(1).filter((c): c is Extract<Datum, { t: 'list' }> => isList(c));
          const chosen = clauses.find((c) => isSym(c.items[0], 'else')) ?? clauses[0];
          if (chosen) this.#declarations(chosen.items.slice(1), out);
          break;
        }
        default:
          throw new SchemeSyntaxError(
            decl.pos,
            `define-library: unknown declaration '${decl.items[0].name}'`,
          );
      }
    }
  }
}
