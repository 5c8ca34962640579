/**
 * WGSL of the store's access functions, for the two store layouts of {@link ../layout}.
 *
 * - **dense**: variable row v is ⌈|Lam|/32⌉ words at `(v - k·rowsPerChunk)·WORDS` of chunk k; the
 *   nonzero-word summary and the dirty marks are sections of `marks`.
 * - **paged**: a row is split into pages of 32 words (the span of one summary word), allocated on
 *   first write from a page pool by a bump pointer; `table[v·SW + p]` holds page p of row v plus one
 *   (0: not allocated, all words zero). A page carries its summary word, its dirty word and the
 *   table entry that owns it, so the summary and the dirty marks cost memory only where the store
 *   has members. When the pool runs out a write fails, sets the state's page-overflow flag and the
 *   host solves again with a larger pool (see {@link ../delta}).
 *
 * Both layouts define `loadWord`, `orWord` (which also keeps the summary), `summaryLoad`,
 * `markDirty`, `dirtyUnits` and `takeDirty`, so the delta kernel is the same text over either; table
 * and pool are split into as many bindings as the device's binding size needs (`chunkedWgsl`). A
 * software adapter inlines every access into every caller, so the pool has only the bindings its
 * pages need (a larger pool is a new pipeline) and each join looks its page up once.
 * @module
 */
import type { PageGeometry, StoreGeometry } from '../layout';

/** Words of a page: 32 store words, the summary word, the dirty word and the owner's table entry. */
export const PAGE_WORDS = 35;
const PAGE_SUMMARY = 32;
const PAGE_DIRTY = 33;
const PAGE_OWNER = 34;

/**
 * An if-chain over `count` bindings of `per` elements each: `body(k, local)` for the chunk that
 * holds element `index` (an expression) at `local` (an expression).
 *
 * @example
 * ```ts
 * chunkedWgsl(2, 1024, 't', (k, local) => `return table${k}[${local}];`);
 * ```
 */
export function chunkedWgsl(
  count: number,
  per: number,
  index: string,
  body: (k: number, local: string) => string,
): string {
  const parts: string[] = [];
  for (let k = 0; k < count; k++) {
    const local = k === 0 ? index : `${index} - ${k * per}u`;
    const cond = k === count - 1 ? '' : `if (${index} < ${(k + 1) * per}u) `;
    parts.push(`  ${cond}{ ${body(k, local)} }`);
  }
  return parts.join('\n');
}

/** State slots the paged layout uses (the bump pointer and the overflow flag). */
export interface PageStateSlots {
  readonly pageNext: number;
  readonly pageOverflow: number;
}

function denseWgsl(chunks: number): string {
  const rowChunks = (body: (k: number, local: string) => string) => {
    const parts: string[] = [];
    for (let k = 0; k < chunks; k++) {
      const local = `(v - ${k}u * P_ROWS_PER_CHUNK) * WORDS + w`;
      const cond = k === chunks - 1 ? '' : `if (v < ${k + 1}u * P_ROWS_PER_CHUNK) `;
      parts.push(`  ${cond}{ ${body(k, local)} }`);
    }
    return parts.join('\n');
  };
  return /* wgsl */ `
// Word w of variable row v (row lams + v of the store).
fn loadWord(v: u32, w: u32) -> u32 {
${rowChunks((k, local) => `return atomicLoad(&store${k}[${local}]);`)}
}

fn orStore(v: u32, w: u32, bits: u32) -> u32 {
${rowChunks((k, local) => `return atomicOr(&store${k}[${local}], bits);`)}
}

// ORs bits into word w of variable row v and returns the word's previous value; a word that was
// zero gets its bit in the row's nonzero-word summary.
fn orWord(v: u32, w: u32, bits: u32) -> u32 {
  let old = orStore(v, w, bits);
  if (old == 0u && bits != 0u) { atomicOr(&marks[v * SW + (w >> 5u)], 1u << (w & 31u)); }
  return old;
}

fn summaryLoad(v: u32, sw: u32) -> u32 { return atomicLoad(&marks[v * SW + sw]); }
fn markDirty(v: u32, w: u32) { atomicOr(&marks[DIRTY + v * SW + (w >> 5u)], 1u << (w & 31u)); }
// Units of dirty marks: one per summary word of every row.
fn dirtyUnits() -> u32 { return DIRTY; }
// Unit i's dirty bits (cleared) and its row and summary word as v·SW + sw.
fn takeDirty(i: u32) -> vec2u { return vec2u(atomicExchange(&marks[DIRTY + i], 0u), i); }
`;
}

function pagedWgsl(p: PageGeometry, slots: PageStateSlots): string {
  const table = (body: (k: number, local: string) => string) =>
    chunkedWgsl(p.tableChunks, p.tableEntriesPerChunk, 't', body);
  const page = (body: (k: number, local: string) => string) =>
    chunkedWgsl(p.pageChunks, p.pagesPerChunk, 'q', (k, local) => body(k, `(${local}) * ${PAGE_WORDS}u + i`));
  return /* wgsl */ `
fn tableLoad(t: u32) -> u32 {
${table((k, local) => `return atomicLoad(&table${k}[${local}]);`)}
}
// Puts q in entry t if it is still 0; returns the entry's value afterwards.
fn tableClaim(t: u32, q: u32) -> u32 {
${table(
  (k, local) => `loop {
    let r = atomicCompareExchangeWeak(&table${k}[${local}], 0u, q);
    if (r.exchanged) { return q; }
    if (r.old_value != 0u) { return r.old_value; }
  }`,
)}
}
fn pageLoad(q: u32, i: u32) -> u32 {
${page((k, local) => `return atomicLoad(&page${k}[${local}]);`)}
}
fn pageOr(q: u32, i: u32, bits: u32) -> u32 {
${page((k, local) => `return atomicOr(&page${k}[${local}], bits);`)}
}
fn pageExchange(q: u32, i: u32, x: u32) -> u32 {
${page((k, local) => `return atomicExchange(&page${k}[${local}], x);`)}
}

// Page sw of variable row v plus one, allocated if it has none; 0 when the pool is full (the
// overflow flag then makes the host solve again with a larger pool). Two writers of one new page
// both take a page from the pool; the one whose claim fails leaves its page unused (and zero).
fn pageOf(v: u32, sw: u32) -> u32 {
  let t = v * SW + sw;
  let q = tableLoad(t);
  if (q != 0u) { return q; }
  let fresh = atomicAdd(&state[${slots.pageNext}u], 1u);
  if (fresh >= PAGE_CAPACITY) {
    atomicStore(&state[${slots.pageOverflow}u], 1u);
    return 0u;
  }
  let won = tableClaim(t, fresh + 1u);
  if (won == fresh + 1u) { pageExchange(fresh, ${PAGE_OWNER}u, t); }
  return won;
}

fn loadWord(v: u32, w: u32) -> u32 {
  let q = tableLoad(v * SW + (w >> 5u));
  if (q == 0u) { return 0u; }
  return pageLoad(q - 1u, w & 31u);
}
// As the dense orWord. A failed write reports its bits as already there: nothing new travels, and
// the solve is rerun.
fn orWord(v: u32, w: u32, bits: u32) -> u32 {
  let q = pageOf(v, w >> 5u);
  if (q == 0u) { return bits; }
  let old = pageOr(q - 1u, w & 31u, bits);
  if (old == 0u && bits != 0u) { pageOr(q - 1u, ${PAGE_SUMMARY}u, 1u << (w & 31u)); }
  return old;
}
fn summaryLoad(v: u32, sw: u32) -> u32 {
  let q = tableLoad(v * SW + sw);
  if (q == 0u) { return 0u; }
  return pageLoad(q - 1u, ${PAGE_SUMMARY}u);
}
// An item's word is in the store, so its page exists; were it not, the solve is rerun.
fn markDirty(v: u32, w: u32) {
  let q = tableLoad(v * SW + (w >> 5u));
  if (q == 0u) {
    atomicStore(&state[${slots.pageOverflow}u], 1u);
    return;
  }
  pageOr(q - 1u, ${PAGE_DIRTY}u, 1u << (w & 31u));
}
// Units of dirty marks: one per page handed out.
fn dirtyUnits() -> u32 { return min(atomicLoad(&state[${slots.pageNext}u]), PAGE_CAPACITY); }
fn takeDirty(q: u32) -> vec2u {
  let m = pageExchange(q, ${PAGE_DIRTY}u, 0u);
  if (m == 0u) { return vec2u(0u, 0u); }
  return vec2u(m, pageLoad(q, ${PAGE_OWNER}u));
}
`;
}

/**
 * The delta kernel's store functions for `g`'s layout (the kernel declares `state`, `marks`, `SW`,
 * `DIRTY`, `WORDS`, `P_ROWS_PER_CHUNK` and, paged, `PAGE_CAPACITY`).
 *
 * @example
 * ```ts
 * const code = storeAccessWgsl(geometry, { pageNext: 22, pageOverflow: 23 });
 * ```
 */
export function storeAccessWgsl(g: Pick<StoreGeometry, 'chunks' | 'paging'>, slots: PageStateSlots): string {
  return g.paging ? pagedWgsl(g.paging, slots) : denseWgsl(g.chunks);
}

/**
 * `loadWord(v, w)` over read-only, non-atomic store bindings, for the readback kernels.
 *
 * @example
 * ```ts
 * const code = readOnlyLoadWordWgsl(geometry);
 * ```
 */
export function readOnlyLoadWordWgsl(g: StoreGeometry): string {
  const p = g.paging;
  if (!p) {
    const parts: string[] = [];
    for (let k = 0; k < g.chunks; k++) {
      const start = k * g.rowsPerChunk;
      const cond = k === g.chunks - 1 ? '' : `if (v < ${start + g.rowsPerChunk}u) `;
      parts.push(`  ${cond}{ return store${k}[(v - ${start}u) * ${g.words}u + w]; }`);
    }
    return `fn loadWord(v: u32, w: u32) -> u32 {\n${parts.join('\n')}\n}`;
  }
  const table = chunkedWgsl(p.tableChunks, p.tableEntriesPerChunk, 't', (k, l) => `return table${k}[${l}];`);
  const page = chunkedWgsl(
    p.pageChunks,
    p.pagesPerChunk,
    'q',
    (k, l) => `return page${k}[(${l}) * ${PAGE_WORDS}u + i];`,
  );
  const sw = Math.ceil(g.words / 32);
  return /* wgsl */ `
fn tableLoad(t: u32) -> u32 {
${table}
}
fn pageLoad(q: u32, i: u32) -> u32 {
${page}
}
fn loadWord(v: u32, w: u32) -> u32 {
  let q = tableLoad(v * ${sw}u + (w >> 5u));
  if (q == 0u) { return 0u; }
  return pageLoad(q - 1u, w & 31u);
}`;
}

/**
 * Names of the store's bindings: `store0…` (dense) or `table0…` and `page0…` (paged).
 *
 * @example
 * ```ts
 * storeBindingNames(geometry); // ['store0', 'store1']
 * ```
 */
export function storeBindingNames(g: Pick<StoreGeometry, 'chunks' | 'paging'>): string[] {
  const p = g.paging;
  if (!p) return Array.from({ length: g.chunks }, (_, k) => `store${k}`);
  return [
    ...Array.from({ length: p.tableChunks }, (_, k) => `table${k}`),
    ...Array.from({ length: p.pageChunks }, (_, k) => `page${k}`),
  ];
}
