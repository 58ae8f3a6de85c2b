// Every relative link of README.md and docs/ reaches something: the file or folder exists, and a
// #anchor names a heading of the target page (GitHub's slugs) or an explicit <a id>/<a name>.
// Absolute URLs are another matter (the network), and code is not a link.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, docPages, parseMarkdown, readPage, type MarkdownPage } from './_markdown.js';

const pages = new Map<string, MarkdownPage>();
function page(path: string): MarkdownPage {
  let found = pages.get(path);
  if (found === undefined) {
    found = readPage(join(ROOT, path));
    pages.set(path, found);
  }
  return found;
}

/** What is wrong with one link of `from` (a path from the root), or undefined when it resolves. */
function brokenLink(from: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // absolute
  const hash = target.indexOf('#');
  const pathPart = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const path = pathPart === '' ? from : normalize(join(dirname(from), decodeURIComponent(pathPart.split('?')[0]!)));
  if (path.startsWith('..')) return 'points outside the repository';
  const absolute = join(ROOT, path);
  if (!existsSync(absolute)) return `${path} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(absolute).isDirectory()) return `${path} is a folder, which has no #${anchor}`;
  if (!path.endsWith('.md')) return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : `#${anchor}: ${path} is not a Markdown page`;
  const anchors = page(path).anchors;
  if (anchors.has(anchor)) return undefined;
  return `${path} has no heading or <a id> for #${anchor} (its anchors: ${[...anchors].slice(0, 40).join(', ')})`;
}

describe('links in README.md and docs/', () => {
  const files = docPages();

  it('finds the pages', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/README.md');
  });

  it.each(files)('%s: every relative link and anchor resolves', (file) => {
    const problems = page(file)
      .links.map((link) => ({ link, problem: brokenLink(file, link.target) }))
      .filter((entry) => entry.problem !== undefined)
      .map(({ link, problem }) => `${file}:${link.line}: (${link.target}): ${problem}`);
    expect(problems).toEqual([]);
  });
});

// The reader itself, on the cases the pages rely on: if it stopped seeing links, or saw links in
// code, the checks above would pass for the wrong reason.
describe('the Markdown reader', () => {
  it('reads links and images, and not what code holds', () => {
    const text = [
      'See [a](a.md#one "title") and [![b](b.png)](c/) and `[not](x.md)`.',
      '```sh',
      '[nor](y.md)',
      '```',
      '[ref]: d.md',
      '<a href="e.md">e</a>',
    ].join('\n');
    expect(parseMarkdown(text).links.map((link) => link.target)).toEqual(['a.md#one', 'b.png', 'c/', 'd.md', 'e.md']);
  });

  it('slugs headings as GitHub does, repeats numbered, code kept, explicit anchors', () => {
    const text = [
      '# mcpctx',
      '## `mcpctx measure --servers FILE`: a list',
      '## Options',
      '## Options',
      '### What `results/` holds',
      '### get_file_history and __bold__',
      '<a id="custom-anchor"></a>',
      '```',
      '# not a heading',
      '```',
    ].join('\n');
    expect([...parseMarkdown(text).anchors]).toEqual([
      'mcpctx',
      'mcpctx-measure---servers-file-a-list',
      'options',
      'options-1',
      'what-results-holds',
      'get_file_history-and-bold',
      'custom-anchor',
    ]);
  });
});
