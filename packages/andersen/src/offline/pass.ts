/**
 * Offline passes written once for every engine: a pass is a generator that yields each graph whose
 * strongly connected components it needs and receives them back. {@link runOnCpu} answers with
 * Tarjan; the GPU driver (`offline/gpu/`) answers with the GPU's coloring, put into the same
 * {@link Components} form by {@link componentsFromLabels}.
 * @module
 */
import { type Components, type CompressedGraph, groupMembers, stronglyConnectedComponents } from './graph';

/** A pass that yields graphs, receives their components, and returns `R`. */
export type OfflinePass<R> = Generator<CompressedGraph, R, Components>;

/**
 * Runs `pass` to the end with the CPU's Tarjan components.
 *
 * @example
 * ```ts
 * const hvn = runOnCpu(hvnPass(program)); // what computeHvn(program) does
 * ```
 */
export function runOnCpu<R>(pass: OfflinePass<R>): R {
  let step = pass.next();
  while (!step.done) step = pass.next(stronglyConnectedComponents(step.value));
  return step.value;
}

/**
 * {@link Components} from a labelling of `graph`'s nodes by component (any label naming a node of
 * the component, e.g. its smallest): members increasing within each component, and components
 * numbered as Tarjan closes them, sinks first (an edge between two components goes from a higher
 * number to a lower one), so that the passes see the same shape from either engine.
 *
 * @example
 * ```ts
 * const graph = compressEdges(3, Uint32Array.of(0, 1, 1, 0, 1, 2), 3);
 * componentsFromLabels(graph, Uint32Array.of(0, 0, 2)).component; // Uint32Array [1, 1, 0]
 * ```
 */
export function componentsFromLabels(graph: CompressedGraph, labels: Uint32Array): Components {
  const n = graph.nodeCount;
  if (labels.length !== n) throw new RangeError(`components: ${labels.length} labels for ${n} nodes`);
  // Dense provisional numbers, in order of first appearance.
  const NONE = 0xffff_ffff;
  const provisional = new Uint32Array(n).fill(NONE);
  const component = new Uint32Array(n);
  let count = 0;
  for (let v = 0; v < n; v++) {
    const label = labels[v] as number;
    if (label >= n) throw new RangeError(`components: node ${v} has label ${label}, not a node`);
    if (provisional[label] === NONE) provisional[label] = count++;
    component[v] = provisional[label] as number;
  }
  // Kahn's topological order of the condensation: sources first.
  const inDegree = new Uint32Array(count);
  for (let u = 0; u < n; u++) {
    for (let e = graph.start[u] as number; e < (graph.start[u + 1] as number); e++) {
      const w = graph.targets[e] as number;
      const d = component[w] as number;
      if (component[u] !== d) inDegree[d] = (inDegree[d] as number) + 1;
    }
  }
  const byComponent = groupMembers(component, count);
  const order = new Uint32Array(count);
  let tail = 0;
  for (let c = 0; c < count; c++) if (inDegree[c] === 0) order[tail++] = c;
  for (let head = 0; head < tail; head++) {
    const c = order[head] as number;
    for (let k = byComponent.memberStart[c] as number; k < (byComponent.memberStart[c + 1] as number); k++) {
      const u = byComponent.members[k] as number;
      for (let e = graph.start[u] as number; e < (graph.start[u + 1] as number); e++) {
        const d = component[graph.targets[e] as number] as number;
        if (d === c) continue;
        inDegree[d] = (inDegree[d] as number) - 1;
        if (inDegree[d] === 0) order[tail++] = d;
      }
    }
  }
  if (tail !== count)
    throw new RangeError('components: the labels do not form the strongly connected components');
  // Sources get the highest numbers, as in Tarjan's closing order.
  const renumber = new Uint32Array(count);
  for (let k = 0; k < count; k++) renumber[order[k] as number] = count - 1 - k;
  for (let v = 0; v < n; v++) component[v] = renumber[component[v] as number] as number;
  return { component, count, ...groupMembers(component, count) };
}
