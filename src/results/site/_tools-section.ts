import { plural } from '../../text/index.js';
import type { SiteTool } from './_check.js';
import { attr, clip, count, text } from './_html.js';

// A server page's tools: a sortable table whose bars split each tool into its four parts, then one
// closed <details> per tool with the full description and both schemas, pretty-printed. The
// index never carries these; only the server's own page does.

const BAR_WIDTH = 200;
/** A schema longer than this (pretty-printed characters) is cut, and the page says so and links the record. */
export const MAX_SCHEMA_CHARS = 100_000;
const PREVIEW_CHARS = 160;

/** A tool's tokens in the four parts the bars show; the rest is what none of the other three holds. */
interface Parts {
  description: number;
  input: number;
  output: number;
  rest: number;
}

const PART_LABELS: ReadonlyArray<[keyof Parts, string]> = [
  ['description', 'description'],
  ['input', 'input schema'],
  ['output', 'output schema'],
  ['rest', 'name and the rest'],
];

/**
 * Each part clamped so the four add up to the tool's tokens: the parts are counted apart, so
 * token boundaries can make their sum exceed the whole by a few.
 */
function partsOf(tool: SiteTool): Parts {
  const description = Math.min(tool.descriptionTokens, tool.tokens);
  const input = Math.min(tool.inputSchemaTokens, tool.tokens - description);
  const output = Math.min(tool.outputSchemaTokens ?? 0, tool.tokens - description - input);
  return { description, input, output, rest: tool.tokens - description - input - output };
}

export function toolsSection(tools: readonly SiteTool[], recordHref: string): string {
  const widest = Math.max(1, ...tools.map((tool) => tool.tokens));
  const rows = tools.map((tool, index) => {
    const parts = partsOf(tool);
    const preview = tool.description === null ? '<span class="muted">—</span>' : text(clip(tool.description, PREVIEW_CHARS));
    return [
      `<tr data-name="${attr(tool.name.toLowerCase())}">`,
      `<td data-value="${attr(tool.name.toLowerCase())}"><a href="#tool-${index}"><code>${text(tool.name)}</code></a></td>`,
      `<td data-value="${tool.tokens}">${count(tool.tokens)}</td>`,
      `<td data-value="${tool.tokens}">${bar(tool.name, parts, widest)}</td>`,
      `<td data-value="${parts.description}">${count(tool.descriptionTokens)}</td>`,
      `<td data-value="${parts.input}">${count(tool.inputSchemaTokens)}</td>`,
      `<td data-value="${parts.output}">${tool.outputSchemaTokens === null ? '<span class="muted" title="no output schema">—</span>' : count(tool.outputSchemaTokens)}</td>`,
      `<td data-value="${parts.rest}">${count(parts.rest)}</td>`,
      `<td class="description">${preview}</td>`,
      '</tr>',
    ].join('');
  });
  const header = ['Tool:text', 'Tokens:number', 'Share:number', 'Description:number', 'Input schema:number', 'Output schema:number', 'Name and the rest:number']
    .map((spec) => {
      const [label, type] = spec.split(':') as [string, string];
      return `<th scope="col" data-type="${type}"><button type="button">${text(label)}</button></th>`;
    })
    .join('');
  const legend = PART_LABELS.map(([part, label]) => `<span class="key key-${part}"></span> ${text(label)}`).join(' ');
  return [
    `<h2>Tools (${text(plural(tools.length, 'tool'))})</h2>`,
    `<p class="legend">${legend}. Each bar is as long as the tool's share of the heaviest tool; the columns give the same parts in tokens. Open a tool's name for its full description and schemas.</p>`,
    '<div class="scroll">',
    '<table id="tools" class="sortable">',
    `<thead><tr>${header}<th scope="col">Description text</th></tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table>',
    '</div>',
    '<h2>Tool definitions</h2>',
    `<div id="definitions">\n${tools.map((tool, index) => definition(tool, index, recordHref)).join('\n')}\n</div>`,
  ].join('\n');
}

/** A bar split into the four parts; its label says the numbers, so the colours are never the only key. */
function bar(name: string, parts: Parts, widest: number): string {
  const scale = BAR_WIDTH / widest;
  let x = 0;
  const rects = PART_LABELS.map(([part]) => {
    const width = parts[part] * scale;
    const rect = `<rect class="part-${part}" x="${x.toFixed(1)}" width="${width.toFixed(1)}" height="12"/>`;
    x += width;
    return rect;
  });
  const label = `${name}: ${PART_LABELS.map(([part, words]) => `${words} ${count(parts[part])}`).join(', ')}`;
  return `<svg class="bar" width="${BAR_WIDTH}" height="12" viewBox="0 0 ${BAR_WIDTH} 12" role="img" aria-label="${attr(label)}"><title>${text(label)}</title>${rects.join('')}</svg>`;
}

function definition(tool: SiteTool, index: number, recordHref: string): string {
  const description = tool.description === null ? '<p class="muted">No description.</p>' : `<p class="full-description">${text(tool.description)}</p>`;
  return [
    `<details class="tool" id="tool-${index}">`,
    `<summary><code>${text(tool.name)}</code> <span class="muted">${text(plural(tool.tokens, 'token'))}</span></summary>`,
    `<h3>Description <span class="muted">(${text(plural(tool.descriptionTokens, 'token'))})</span></h3>`,
    description,
    schema('Input schema', tool.inputSchema, tool.inputSchemaTokens, recordHref),
    tool.outputSchemaTokens === null && tool.outputSchema === undefined ? '' : schema('Output schema', tool.outputSchema, tool.outputSchemaTokens ?? 0, recordHref),
    '</details>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}

function schema(title: string, value: unknown, tokens: number, recordHref: string): string {
  const heading = `<h3>${text(title)} <span class="muted">(${text(plural(tokens, 'token'))})</span></h3>`;
  if (value === undefined) return `${heading}\n<p class="muted">None in the record.</p>`;
  const pretty = JSON.stringify(value, null, 2);
  if (pretty.length <= MAX_SCHEMA_CHARS) return `${heading}\n<pre class="schema"><code>${text(pretty)}</code></pre>`;
  return [
    heading,
    `<p class="truncated">Shown cut at ${count(MAX_SCHEMA_CHARS)} of ${count(pretty.length)} characters; the whole schema is in <a href="${attr(recordHref)}">measurement.json</a>.</p>`,
    `<pre class="schema"><code>${text(pretty.slice(0, MAX_SCHEMA_CHARS))}</code></pre>`,
  ].join('\n');
}
