import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DefaultTheme, defineConfig } from 'vitepress';
import { packageLinks, readSourcePages } from './package-links';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
const apiSidebarFile = fileURLToPath(new URL('../api/typedoc-sidebar.json', import.meta.url));
// Written by TypeDoc in `npm run docs:prepare`; absent before it has run (the site still builds).
// Only the modules go into the sidebar: with every member listed, each of the ~550 API pages
// carried a 300 KB sidebar; a module's page lists its members.
const apiSidebar: DefaultTheme.SidebarItem[] = existsSync(apiSidebarFile)
  ? (JSON.parse(readFileSync(apiSidebarFile, 'utf8')) as DefaultTheme.SidebarItem[]).map(
      ({ text, link }) => ({
        text: text ?? '',
        ...(link ? { link } : {}),
      }),
    )
  : [];

const guide: DefaultTheme.SidebarItem[] = [
  {
    text: 'Introduction',
    items: [
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Architecture', link: '/architecture' },
      { text: 'Benchmark report', link: '/report' },
      { text: 'Decisions', link: '/decisions/' },
      { text: 'Try it in the browser', link: '/playground' },
    ],
  },
  {
    text: 'Core',
    items: [
      { text: 'gpu-allocator', link: '/guide/gpu-allocator' },
      { text: 'gpu-primitives', link: '/guide/gpu-primitives' },
      { text: 'sparse-bitvector', link: '/guide/sparse-bitvector' },
    ],
  },
  {
    text: 'Analyses',
    items: [
      {
        text: 'andersen',
        link: '/guide/andersen',
        items: [
          { text: 'File formats', link: '/guide/andersen-formats' },
          { text: 'LLVM IR front end', link: '/guide/andersen-llvm' },
          { text: 'Offline passes', link: '/guide/andersen-offline' },
        ],
      },
      { text: 'eigencfa', link: '/guide/eigencfa' },
      {
        text: 'octagon',
        link: '/guide/octagon',
        items: [
          { text: "APRON's other operators", link: '/guide/octagon-apron' },
          { text: 'Number engines and WebGPU', link: '/guide/octagon-engines' },
        ],
      },
    ],
  },
  { text: 'Tools', items: [{ text: 'cli', link: '/guide/cli' }] },
  { text: 'Reference', items: [{ text: 'API', link: '/api/' }] },
];

export default defineConfig({
  title: 'gpumorph',
  description: 'GPU data structures for morph graph algorithms, and the program analyses built on them',
  // A site served below a path (e.g. a project page) sets GPUMORPH_DOCS_BASE=/gpumorph/.
  base: process.env.GPUMORPH_DOCS_BASE ?? '/',
  // The bench JSON folder keeps its own README for the repository; generated includes are not pages.
  srcExclude: ['_generated/**', 'benchmarks/**'],
  lastUpdated: false,
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/getting-started' },
      { text: 'Report', link: '/report' },
      { text: 'Playground', link: '/playground' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: {
      '/api/': [{ text: 'API reference', link: '/api/', items: apiSidebar }],
      '/': guide,
    },
    outline: { level: [2, 3] },
  },
  markdown: {
    config(md) {
      md.use(packageLinks(readSourcePages(docsDir, ['guide', '.'])));
    },
  },
  vite: {
    // Resolve the workspace packages to their TypeScript sources, as the tests do, so the site
    // builds without `npm run build` first.
    resolve: { conditions: ['@gpumorph/source'] },
    ssr: { resolve: { conditions: ['@gpumorph/source'], externalConditions: ['@gpumorph/source'] } },
  },
});
