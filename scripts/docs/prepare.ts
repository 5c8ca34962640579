/**
 * Generates everything the docs site builds from but git does not keep: the benchmark report
 * (Markdown and SVG charts, from docs/benchmarks/ JSON), the layer diagram (from the packages'
 * package.json) and the API reference (TypeDoc). Run by `npm run docs:build` and `docs:dev`.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateApiReference } from './api';
import { buildBenchReport, loadBenchFiles, writeBenchReport } from './bench-report/index';
import { readWorkspaceGraph, renderLayerDiagram } from './layers';
import { markdownSection } from './markdown-sections';

const root = resolve(import.meta.dirname, '../..');
const docs = join(root, 'docs');
/** Git-ignored folders the site reads (see .gitignore). */
const generatedPages = join(docs, '_generated');
const generatedAssets = join(docs, 'public/generated');

const started = performance.now();
const lap = (what: string) =>
  console.log(`docs: ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);

// The getting-started page shows these README sections as they are.
const readme = readFileSync(join(root, 'README.md'), 'utf8');
mkdirSync(generatedPages, { recursive: true });
writeFileSync(
  join(generatedPages, 'readme-start.md'),
  ['Quick start', 'Development'].map((heading) => markdownSection(readme, heading, 'README.md')).join('\n'),
);

const report = buildBenchReport(loadBenchFiles(join(docs, 'benchmarks'), root), '/generated/bench');
writeBenchReport(report, join(generatedPages, 'bench-report.md'), join(generatedAssets, 'bench'));
lap(`benchmark report, ${report.charts.length} charts`);

mkdirSync(generatedAssets, { recursive: true });
writeFileSync(join(generatedAssets, 'layers.svg'), renderLayerDiagram(readWorkspaceGraph(root)));
lap('layer diagram');

const apiDir = join(docs, 'api');
rmSync(apiDir, { recursive: true, force: true });
const entryPoints = await generateApiReference(root, apiDir, docs);
lap(`API reference of ${entryPoints} entry points`);
