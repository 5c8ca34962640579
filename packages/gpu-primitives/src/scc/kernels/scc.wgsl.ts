import { SCC_NONE } from '../layout';

/** The component kernels; each runs one invocation per node or per edge. */
export type SccKernelName =
  | 'init'
  | 'degrees'
  | 'trim'
  | 'colorInit'
  | 'forward'
  | 'roots'
  | 'backward'
  | 'finish';

/** Whether a kernel runs per edge (else per node). */
export const SCC_EDGE_KERNELS: ReadonlySet<SccKernelName> = new Set(['degrees', 'forward', 'backward']);

const bodies: Record<SccKernelName, string> = {
  // Every node starts active, with no component.
  init: /* wgsl */ `
  alive[v] = 1u;
  component[v] = ${SCC_NONE}u;
  atomicStore(&degree[v], 0u);`,
  // Which active nodes have an active edge out (bit 0) and in (bit 1); self-loops do not count.
  degrees: /* wgsl */ `
  let s = sources[e];
  let t = targets[e];
  if (s != t && alive[s] == 1u && alive[t] == 1u) {
    atomicOr(&degree[s], 1u);
    atomicOr(&degree[t], 2u);
  }`,
  // A node with no active edge in or none out lies on no cycle of active nodes: its own component.
  trim: /* wgsl */ `
  let d = atomicExchange(&degree[v], 0u);
  if (alive[v] == 1u && d != 3u) {
    component[v] = v;
    alive[v] = 0u;
    atomicStore(&changed[0], 1u);
  }`,
  colorInit: /* wgsl */ `
  if (alive[v] == 1u) {
    atomicStore(&color[v], v);
    atomicStore(&mark[v], 0u);
  }`,
  // Colors flow forwards to a fixed point: the color of v is the smallest active node reaching v.
  forward: /* wgsl */ `
  let s = sources[e];
  let t = targets[e];
  if (alive[s] == 1u && alive[t] == 1u) {
    let c = atomicLoad(&color[s]);
    if (c < atomicLoad(&color[t])) {
      atomicMin(&color[t], c);
      atomicStore(&changed[0], 1u);
    }
  }`,
  // A node of its own color is the smallest of its component.
  roots: /* wgsl */ `
  if (alive[v] == 1u && atomicLoad(&color[v]) == v) { atomicStore(&mark[v], 1u); }`,
  // Backwards from each root through nodes of its color: exactly the root's component.
  backward: /* wgsl */ `
  let s = sources[e];
  let t = targets[e];
  if (alive[s] == 1u && alive[t] == 1u && atomicLoad(&mark[t]) == 1u && atomicLoad(&mark[s]) == 0u
      && atomicLoad(&color[s]) == atomicLoad(&color[t])) {
    atomicStore(&mark[s], 1u);
    atomicStore(&changed[0], 1u);
  }`,
  // Marked nodes take their root as component; `changed` says whether any node is left.
  finish: /* wgsl */ `
  if (alive[v] == 1u) {
    if (atomicLoad(&mark[v]) == 1u) {
      component[v] = atomicLoad(&color[v]);
      alive[v] = 0u;
    } else {
      atomicStore(&changed[0], 1u);
    }
  }`,
};

/**
 * WGSL of one component kernel over `layoutWgsl` (the bindings of `sccLayout`), one invocation
 * per edge (`e`) or per node (`v`).
 *
 * @example
 * ```ts
 * sccKernelWgsl('trim', sccLayout.wgsl(), 256); // … fn main …
 * ```
 */
export function sccKernelWgsl(name: SccKernelName, layoutWgsl: string, workgroupSize: number): string {
  const perEdge = SCC_EDGE_KERNELS.has(name);
  const index = perEdge ? 'e' : 'v';
  const bound = perEdge ? 'scc_params.edges' : 'scc_params.nodes';
  return /* wgsl */ `
${layoutWgsl}
@compute @workgroup_size(${workgroupSize})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let ${index} = gm_workgroup_index(wid, nwg) * ${workgroupSize}u + lid;
  if (${index} >= ${bound}) { return; }
${bodies[name]}
}`;
}
