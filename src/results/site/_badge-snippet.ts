import { printableText } from '../../text/index.js';
import { attr, text } from './_html.js';

// The badge snippet of a server page: Markdown and HTML a maintainer pastes into a README. The
// snippets are visible text (select and copy with no script); the Copy buttons are the script's
// addition, hidden until it runs.

/**
 * The snippets' addresses: absolute under `baseUrl` (where the site is published), else relative
 * to the site's root, and the page says so.
 */
export function badgeSnippetSection(name: string, segment: string, baseUrl: string | null): string {
  const base = baseUrl ?? '';
  const badgeUrl = `${base}badges/${segment}.svg`;
  const pageUrl = `${base}servers/${segment}.html`;
  const alt = `context cost of ${printableText(name, 'note')}`;
  const markdown = `[![${alt.replace(/[\\[\]]/g, '\\$&')}](${badgeUrl})](${pageUrl})`;
  const html = `<a href="${attr(pageUrl)}"><img src="${attr(badgeUrl)}" alt="${attr(alt)}"></a>`;
  const where =
    baseUrl === null
      ? "The addresses are relative to the site's root: put the address the site is published at in front of them (or build it with <code>mcpctx site --base-url</code>)."
      : `The addresses point at the site published at <code>${text(baseUrl)}</code>.`;
  return [
    '<section id="badge">',
    '<h2>Badge</h2>',
    `<p>For a README. ${where}</p>`,
    snippet('Markdown', 'snippet-markdown', markdown),
    snippet('HTML', 'snippet-html', html),
    '</section>',
  ].join('\n');
}

function snippet(label: string, id: string, value: string): string {
  return [
    `<div class="snippet"><span class="snippet-label">${text(label)}</span> <button type="button" class="copy" data-copy="${id}" hidden>Copy</button> <output class="copied" for="${id}"></output>`,
    `<pre><code id="${id}">${text(value)}</code></pre></div>`,
  ].join('\n');
}
