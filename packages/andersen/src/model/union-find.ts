/**
 * The root of `v` in the union–find forest `parent` (a root is its own parent), pointing every
 * node on the path walked straight at it. The offline passes, the GPU engine's host preparation
 * and the CPU engine share it.
 *
 * @example
 * ```ts
 * const parent = Uint32Array.of(0, 0, 1, 2);
 * findRoot(parent, 3); // 0, and parent is now [0, 0, 0, 0]
 * ```
 */
export function findRoot(parent: Uint32Array, v: number): number {
  let root = v;
  while (parent[root] !== root) root = parent[root] as number;
  while (parent[v] !== root) {
    const next = parent[v] as number;
    parent[v] = root;
    v = next;
  }
  return root;
}
