/**
 * Cuts `## ` sections out of a Markdown file (with their subsections), so a docs page can show
 * parts of the README without a hand-made copy that would drift from it.
 * @module
 */

/** Thrown when a section the docs ask for is missing from the file. */
export class MissingSectionError extends Error {
  override readonly name = 'MissingSectionError';
}

/**
 * The section under the level-2 heading `heading` (the heading line included), up to the next
 * level-1 or level-2 heading. Headings inside fenced code blocks do not count.
 *
 * @example
 * ```ts
 * markdownSection(readFileSync('README.md', 'utf8'), 'Quick start'); // '## Quick start\n…'
 * ```
 */
export function markdownSection(markdown: string, heading: string, file = 'the file'): string {
  const lines = markdown.split(/\r?\n/);
  let inFence = false;
  let start = -1;
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const match = /^(#{1,2})\s+(.*?)\s*$/.exec(line);
    if (!match) continue;
    if (start >= 0) {
      end = i;
      break;
    }
    if (match[1] === '##' && match[2] === heading) start = i;
  }
  if (start < 0) throw new MissingSectionError(`${file} has no "## ${heading}" section`);
  return `${lines.slice(start, end).join('\n').trimEnd()}\n`;
}
