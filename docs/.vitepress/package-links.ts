/**
 * Markdown files of the repository are included into docs pages as they are (VitePress
 * `<!--@include: …-->`), so their relative links point at repository files, not at pages. This
 * markdown-it plugin rewrites them: a page says which file it shows (`source:` in its front
 * matter); links are resolved against that file's folder and then mapped to the page that shows
 * the target, to the report for `docs/benchmarks/`, or, for a file no page shows, turned into
 * plain text (with a warning) rather than a dead link.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { MarkdownRenderer } from 'vitepress';

/** Repository path of a shown file → the page (URL path) that shows it. */
export type SourcePages = ReadonlyMap<string, string>;

/** Reads `source:` from the front matter of the pages in `docs/<folder>/`. */
export function readSourcePages(docsDir: string, folders: readonly string[]): SourcePages {
  const pages = new Map<string, string>();
  for (const folder of folders)
    for (const name of readdirSync(join(docsDir, folder)).filter((n) => n.endsWith('.md'))) {
      const text = readFileSync(join(docsDir, folder, name), 'utf8');
      const source = /^---\r?\n[\s\S]*?^source:\s*(\S+)\s*$[\s\S]*?^---/m.exec(text)?.[1];
      if (source) pages.set(source, `/${folder}/${name.replace(/\.md$/, '')}`);
    }
  return pages;
}

/**
 * Where a repository link should go on the site, or `undefined` when no page shows its target.
 *
 * @example
 * ```ts
 * pageForRepositoryPath('packages/andersen/FORMATS.md', pages); // '/guide/andersen-formats'
 * pageForRepositoryPath('docs/architecture.md#events', pages); // '/architecture#events'
 * ```
 */
export function pageForRepositoryPath(path: string, pages: SourcePages): string | undefined {
  const [file = '', anchor] = path.split('#');
  const suffix = anchor ? `#${anchor}` : '';
  if (file.startsWith('docs/benchmarks/')) return `/report${suffix}`;
  // The site's own Markdown files are its pages (`docs/architecture.md` → `/architecture`,
  // `docs/decisions/x.md` → `/decisions/x`).
  if (file.startsWith('docs/') && file.endsWith('.md'))
    return `/${file.slice('docs/'.length).replace(/(index)?\.md$/, '')}${suffix}`;
  const direct = pages.get(file) ?? pages.get(posix.join(file, 'README.md'));
  return direct ? `${direct}${suffix}` : undefined;
}

/** The markdown-it plugin (see the module comment). */
export function packageLinks(pages: SourcePages) {
  return (md: MarkdownRenderer): void => {
    md.core.ruler.push('gpumorph-package-links', (state) => {
      const source = (state.env as { frontmatter?: { source?: unknown } }).frontmatter?.source;
      if (typeof source !== 'string') return;
      const folder = posix.dirname(source);
      for (const block of state.tokens) {
        const children = block.children ?? [];
        for (let i = 0; i < children.length; i++) {
          const token = children[i];
          if (token?.type !== 'link_open') continue;
          const href = token.attrGet('href');
          if (!href || /^([a-z]+:|\/|#)/i.test(href)) continue;
          const target = posix.normalize(posix.join(folder, href));
          const page = pageForRepositoryPath(target, pages);
          if (page) {
            token.attrSet('href', page);
            continue;
          }
          // No page shows the target: keep the text, drop the link (a dead link would fail the build).
          const close = children.findIndex((t, j) => j > i && t.type === 'link_close');
          if (close < 0) continue;
          console.warn(`docs: ${source} links to ${target}, which no docs page shows; kept as text`);
          children.splice(close, 1);
          children.splice(i, 1);
          i--;
        }
      }
    });
  };
}
