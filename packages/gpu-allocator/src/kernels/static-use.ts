/**
 * The identifiers each module-scope function of a WGSL module names, and the module's functions,
 * read once per source so that many entry points of one module can ask which module-scope
 * variables they use.
 *
 * @example
 * ```ts
 * const uses = readStaticUses('var<private> a: u32; fn f() { a = 1u; } @compute @workgroup_size(1) fn main() { f(); }');
 * uses.usedBy('main', ['a', 'b']); // Set { 'a' }
 * ```
 */
export class WgslStaticUses {
  /** Identifiers named in each function's header and body, by function name. */
  readonly #namedBy: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(namedBy: ReadonlyMap<string, ReadonlySet<string>>) {
    this.#namedBy = namedBy;
  }

  /** The module's function names, entry points included. */
  get functions(): readonly string[] {
    return [...this.#namedBy.keys()];
  }

  /** Whether the module declares a function `name`. */
  has(name: string): boolean {
    return this.#namedBy.has(name);
  }

  /**
   * Which of `names` (module-scope variables: bindings, say) `entryPoint` statically uses: those
   * it or a function it calls, directly or not, names. This is WGSL's rule for the resources an
   * entry point uses, which WebGPU's `layout: 'auto'` follows; like it, a name in a branch that
   * never runs counts. A local variable or parameter that shadows one of `names` counts as a use
   * too: the answer may hold a name too many, never one too few.
   *
   * @throws Error when the module has no function `entryPoint`.
   */
  usedBy(entryPoint: string, names: Iterable<string>): Set<string> {
    if (!this.#namedBy.has(entryPoint)) {
      throw new Error(`WGSL module has no function '${entryPoint}'`);
    }
    const reached = new Set<string>([entryPoint]);
    const pending = [entryPoint];
    const named = new Set<string>();
    for (let fn = pending.pop(); fn !== undefined; fn = pending.pop()) {
      for (const identifier of this.#namedBy.get(fn) ?? []) {
        named.add(identifier);
        if (this.#namedBy.has(identifier) && !reached.has(identifier)) {
          reached.add(identifier);
          pending.push(identifier);
        }
      }
    }
    const used = new Set<string>();
    for (const name of names) if (named.has(name)) used.add(name);
    return used;
  }
}

/**
 * Reads a WGSL module's functions and the identifiers each one names (comments skipped, nested
 * block comments included). The module must be valid WGSL; this does not check it.
 *
 * @example
 * ```ts
 * readStaticUses(code).usedBy('main', layout.names);
 * ```
 */
export function readStaticUses(code: string): WgslStaticUses {
  const namedBy = new Map<string, Set<string>>();
  let depth = 0;
  // After `fn` at module scope: the name to come, then the function whose header and body are read.
  let expectName = false;
  let current: Set<string> | undefined;
  let i = 0;
  const length = code.length;
  while (i < length) {
    const c = code.charCodeAt(i);
    if (c === SLASH && code.charCodeAt(i + 1) === SLASH) {
      const end = code.indexOf('\n', i + 2);
      i = end < 0 ? length : end + 1;
    } else if (c === SLASH && code.charCodeAt(i + 1) === STAR) {
      i = skipBlockComment(code, i);
    } else if (isIdentifierStart(c)) {
      let end = i + 1;
      while (end < length && isIdentifierPart(code.charCodeAt(end))) end++;
      const word = code.slice(i, end);
      if (expectName) {
        expectName = false;
        current = new Set<string>();
        namedBy.set(word, current);
      } else if (depth === 0 && word === 'fn') {
        expectName = true;
      } else if (current) {
        current.add(word);
      }
      i = end;
    } else if (c >= DIGIT_0 && c <= DIGIT_9) {
      // Numbers (and their suffixes: 1u, 0x1fu, 1e5f) are not identifiers.
      i++;
      while (i < length && isIdentifierPart(code.charCodeAt(i))) i++;
    } else {
      if (c === OPEN_BRACE) depth++;
      else if (c === CLOSE_BRACE) {
        depth--;
        if (depth === 0) current = undefined;
      }
      i++;
    }
  }
  return new WgslStaticUses(namedBy);
}

/** Index just past the block comment that starts at `start` (WGSL block comments nest). */
function skipBlockComment(code: string, start: number): number {
  let nesting = 0;
  let i = start;
  while (i < code.length) {
    if (code.charCodeAt(i) === SLASH && code.charCodeAt(i + 1) === STAR) {
      nesting++;
      i += 2;
    } else if (code.charCodeAt(i) === STAR && code.charCodeAt(i + 1) === SLASH) {
      nesting--;
      i += 2;
      if (nesting === 0) return i;
    } else {
      i++;
    }
  }
  return code.length;
}

const SLASH = 0x2f;
const STAR = 0x2a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

function isIdentifierStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c > 0x7f;
}

function isIdentifierPart(c: number): boolean {
  return isIdentifierStart(c) || (c >= DIGIT_0 && c <= DIGIT_9);
}
