import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LayeringError, readWorkspaceGraph, reducedEdges, renderLayerDiagram } from '../layers';
import { MissingSectionError, markdownSection } from '../markdown-sections';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('layer diagram', () => {
  const graph = readWorkspaceGraph(root);

  it('draws every workspace package and only the edges not implied by others', () => {
    const svg = renderLayerDiagram(graph);
    expect(svg.match(/<g class="package"/g)?.length).toBe(graph.length);
    const edges = reducedEdges(graph);
    expect(svg.match(/class="edge"/g)?.length).toBe(edges.length);
    // andersen → gpu-allocator is implied by andersen → sparse-bitvector → gpu-primitives → gpu-allocator.
    expect(edges).toContainEqual(['@gpumorph/andersen', '@gpumorph/sparse-bitvector']);
    expect(edges).not.toContainEqual(['@gpumorph/andersen', '@gpumorph/gpu-allocator']);
  });

  it('refuses a core package that depends on an analysis', () => {
    const broken = graph.map((n) =>
      n.name === '@gpumorph/gpu-allocator' ? { ...n, dependsOn: ['@gpumorph/octagon'] } : n,
    );
    expect(() => renderLayerDiagram(broken)).toThrow(LayeringError);
  });
});

describe('markdownSection', () => {
  const text =
    '# T\n\n## Quick start\n\nrun\n\n```sh\n## not a heading\n```\n\n### Sub\n\nx\n\n## Next\n\ny\n';

  it('takes a level-2 section with its subsections and code, up to the next level-2 heading', () => {
    expect(markdownSection(text, 'Quick start')).toBe(
      '## Quick start\n\nrun\n\n```sh\n## not a heading\n```\n\n### Sub\n\nx\n',
    );
  });

  it('says which section is missing', () => {
    expect(() => markdownSection(text, 'Install', 'README.md')).toThrow(MissingSectionError);
  });
});
