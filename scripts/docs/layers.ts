/**
 * The layer diagram of the architecture page, drawn from the workspace's own `package.json`
 * files so it cannot drift from the code: one box per package, one arrow per dependency between
 * them (edges implied by others are left out), rows by layer: core at the bottom, the analyses
 * above it, the command on top.
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { escapeXml } from './bench-report/format';

/** The layers of DESIGN.md, bottom up. */
export const LAYERS = ['core', 'analyses', 'tools'] as const;
/** A layer name. */
export type Layer = (typeof LAYERS)[number];

/** Which layer each package belongs to (a new package must be placed here, or the build fails). */
export const LAYER_OF: Readonly<Record<string, Layer>> = {
  '@gpumorph/gpu-allocator': 'core',
  '@gpumorph/gpu-primitives': 'core',
  '@gpumorph/sparse-bitvector': 'core',
  '@gpumorph/andersen': 'analyses',
  '@gpumorph/eigencfa': 'analyses',
  '@gpumorph/octagon': 'analyses',
  '@gpumorph/cli': 'tools',
};

/** A workspace package and the workspace packages it depends on. */
export interface PackageNode {
  readonly name: string;
  readonly dependsOn: readonly string[];
}

/** Thrown when the package graph breaks the layering (a lower package importing a higher one). */
export class LayeringError extends Error {
  override readonly name = 'LayeringError';
}

/** Reads the published workspaces of the root `package.json` and their dependencies on each other. */
export function readWorkspaceGraph(root: string): PackageNode[] {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  // The private workspaces (the bench) are not part of the published layering.
  const manifests = rootManifest.workspaces
    .map(
      (dir) =>
        JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as {
          name: string;
          private?: boolean;
          dependencies?: Record<string, string>;
        },
    )
    .filter((m) => m.private !== true);
  const names = new Set(manifests.map((m) => m.name));
  return manifests.map((m) => ({
    name: m.name,
    dependsOn: Object.keys(m.dependencies ?? {}).filter((dep) => names.has(dep)),
  }));
}

/**
 * The edges of the graph less those implied by longer paths (the transitive reduction of a DAG),
 * so the diagram shows structure rather than a thicket of arrows.
 */
export function reducedEdges(nodes: readonly PackageNode[]): [string, string][] {
  const deps = new Map(nodes.map((n) => [n.name, n.dependsOn]));
  const reachable = (from: string, to: string, skipDirect: boolean): boolean => {
    const stack = (deps.get(from) ?? []).filter((d) => !(skipDirect && d === to));
    const seen = new Set<string>();
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (next === to) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(deps.get(next) ?? []));
    }
    return false;
  };
  return nodes.flatMap((n) =>
    n.dependsOn.filter((d) => !reachable(n.name, d, true)).map((d): [string, string] => [n.name, d]),
  );
}

/** How many packages each package sits on, directly or not (orders the core row: dependents first). */
function depth(name: string, deps: ReadonlyMap<string, readonly string[]>): number {
  const below = deps.get(name) ?? [];
  return below.length === 0 ? 0 : 1 + Math.max(...below.map((d) => depth(d, deps)));
}

const BOX = { width: 230, height: 44 };
const COLORS: Record<Layer, { fill: string; stroke: string }> = {
  core: { fill: '#e8f1fb', stroke: '#0072B2' },
  analyses: { fill: '#e6f5ef', stroke: '#009E73' },
  tools: { fill: '#fcefe6', stroke: '#D55E00' },
};

/**
 * Renders the layer diagram as SVG. Throws {@link LayeringError} when a package is missing from
 * {@link LAYER_OF} or depends on a package of a higher layer.
 *
 * @example
 * ```ts
 * const svg = renderLayerDiagram(readWorkspaceGraph('.'));
 * ```
 */
export function renderLayerDiagram(nodes: readonly PackageNode[]): string {
  const deps = new Map(nodes.map((n) => [n.name, n.dependsOn]));
  const layerOf = (name: string): Layer => {
    const layer = LAYER_OF[name];
    if (!layer) throw new LayeringError(`${name} has no layer in scripts/docs/layers.ts LAYER_OF`);
    return layer;
  };
  for (const n of nodes)
    for (const d of n.dependsOn)
      if (LAYERS.indexOf(layerOf(d)) > LAYERS.indexOf(layerOf(n.name)))
        throw new LayeringError(
          `${n.name} (${layerOf(n.name)}) depends on ${d} (${layerOf(d)}), a higher layer`,
        );

  const columns = Math.max(...LAYERS.map((layer) => nodes.filter((n) => layerOf(n.name) === layer).length));
  const gapX = 40;
  const gapY = 70;
  const labelWidth = 90;
  const width = labelWidth + columns * BOX.width + (columns - 1) * gapX + 30;
  const height = LAYERS.length * BOX.height + (LAYERS.length - 1) * gapY + 60;
  const position = new Map<string, { x: number; y: number }>();
  LAYERS.forEach((layer, level) => {
    const row = nodes
      .filter((n) => layerOf(n.name) === layer)
      .sort((a, b) => depth(b.name, deps) - depth(a.name, deps));
    const rowWidth = row.length * BOX.width + (row.length - 1) * gapX;
    const left = labelWidth + (columns * BOX.width + (columns - 1) * gapX - rowWidth) / 2;
    const y = 20 + (LAYERS.length - 1 - level) * (BOX.height + gapY);
    row.forEach((n, i) => {
      position.set(n.name, { x: left + i * (BOX.width + gapX), y });
    });
  });

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="layers-title" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="13">`,
    '<title id="layers-title">gpumorph packages by layer; arrows point to the packages each depends on</title>',
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  LAYERS.forEach((layer, level) => {
    const y = 20 + (LAYERS.length - 1 - level) * (BOX.height + gapY);
    out.push(
      `<text x="12" y="${y + BOX.height / 2 + 4}" fill="#444" font-weight="600">${escapeXml(layer)}</text>`,
    );
  });
  for (const [from, to] of reducedEdges(nodes)) {
    const a = position.get(from);
    const b = position.get(to);
    if (!a || !b) continue;
    if (a.y === b.y) {
      // Same row: from the side of one box to the facing side of the other.
      const leftToRight = a.x < b.x;
      const x1 = leftToRight ? a.x + BOX.width : a.x;
      const x2 = leftToRight ? b.x : b.x + BOX.width;
      const y = a.y + BOX.height / 2;
      out.push(
        `<line class="edge" data-from="${from}" data-to="${to}" x1="${x1}" y1="${y}" x2="${x2}" y2="${y}" stroke="#555" stroke-width="1.5" marker-end="url(#arrow)"/>`,
      );
    } else {
      const x1 = a.x + BOX.width / 2;
      const x2 = b.x + BOX.width / 2;
      out.push(
        `<line class="edge" data-from="${from}" data-to="${to}" x1="${x1}" y1="${a.y + BOX.height}" x2="${x2}" y2="${b.y}" stroke="#555" stroke-width="1.5" marker-end="url(#arrow)"/>`,
      );
    }
  }
  for (const n of nodes) {
    const p = position.get(n.name);
    if (!p) continue;
    const color = COLORS[layerOf(n.name)];
    out.push(
      `<g class="package" data-name="${escapeXml(n.name)}"><rect x="${p.x}" y="${p.y}" width="${BOX.width}" height="${BOX.height}" rx="6" fill="${color.fill}" stroke="${color.stroke}" stroke-width="1.5"/>`,
      `<text x="${p.x + BOX.width / 2}" y="${p.y + BOX.height / 2 + 5}" text-anchor="middle" fill="#111">${escapeXml(n.name)}</text></g>`,
    );
  }
  out.push(
    `<text x="${labelWidth}" y="${height - 12}" fill="#555" font-size="11">arrow: depends on (edges implied by others left out); from the packages' package.json</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}
