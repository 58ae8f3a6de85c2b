import { wilsonInterval } from '../../stats/index.js';
import type { RoutingRun } from '../_run.js';

/** One line of a panel: a label and a value per catalog size (null where it has none). */
interface Series {
  readonly label: string;
  readonly colour: string;
  readonly dashed: boolean;
  readonly values: ReadonlyArray<number | null>;
  /** A 95% interval per value, drawn as an error bar (null where a value has none). */
  readonly intervals?: ReadonlyArray<{ readonly low: number; readonly high: number } | null>;
}

interface Panel {
  readonly title: string;
  readonly yLabel: string;
  /** Fixed top of the y axis (a share), or undefined to fit the data. */
  readonly yMax?: number;
  readonly series: readonly Series[];
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const WIDTH = 860;
const PANEL_WIDTH = 340;
const PLOT_HEIGHT = 220;
const TOP = 48;
const LEFT = 64;
const GAP = 104;

/**
 * An SVG chart of a run, drawn from its tables: accuracy (or, offline, recall@k) and tokens
 * against catalog size, one line per protocol or retriever, dashed for confusable distractors;
 * each accuracy point carries its 95% Wilson interval as an error bar (each recall point the
 * Wilson interval of its hits over its requests): a few dozen requests per point is a wide one.
 * Plain SVG 1.1 with no script or external reference, so it opens anywhere and a page can link it.
 */
export function routingChart(run: RoutingRun): string {
  const [left, right] = run.answers.length > 0 ? modelPanels(run) : offlinePanels(run);
  const legend = [...new Map([...left.series, ...right.series].map((series) => [series.label, series])).values()];
  const legendRows = Math.ceil(legend.length / 3);
  const height = TOP + PLOT_HEIGHT + 56 + legendRows * 20 + 12;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    drawPanel(left, run.sizes, LEFT),
    drawPanel(right, run.sizes, LEFT + PANEL_WIDTH + GAP),
  ];
  legend.forEach((series, index) => {
    const x = LEFT + (index % 3) * 260;
    const y = TOP + PLOT_HEIGHT + 56 + Math.floor(index / 3) * 20;
    parts.push(`<line x1="${x}" y1="${y - 4}" x2="${x + 28}" y2="${y - 4}" stroke="${series.colour}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    parts.push(`<text x="${x + 34}" y="${y}">${escapeXml(series.label)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function modelPanels(run: RoutingRun): [Panel, Panel] {
  const keys = [...new Map(run.accuracy.map((cell) => [`${cell.protocol}|${cell.retriever ?? ''}|${cell.kind}`, cell])).values()];
  const protocols = [...new Set(keys.map((cell) => `${cell.protocol}|${cell.retriever ?? ''}`))];
  type Cell = RoutingRun['accuracy'][number];
  const series = (value: (cell: Cell) => number, interval?: (cell: Cell) => { low: number; high: number }): Series[] =>
    keys.map((key) => {
      const cells = run.sizes.map((size) => run.accuracy.find((entry) => entry.protocol === key.protocol && entry.retriever === key.retriever && entry.kind === key.kind && entry.size === size));
      return {
        label: `${key.retriever === null ? key.protocol : `${key.protocol} (${key.retriever})`}, ${key.kind}`,
        colour: COLOURS[protocols.indexOf(`${key.protocol}|${key.retriever ?? ''}`) % COLOURS.length]!,
        dashed: key.kind === 'confusable',
        values: cells.map((cell) => (cell === undefined ? null : value(cell))),
        ...(interval === undefined ? {} : { intervals: cells.map((cell) => (cell === undefined ? null : interval(cell))) }),
      };
    });
  return [
    { title: `Right tool chosen (${run.model?.name ?? ''}), 95% Wilson intervals`, yLabel: 'share of requests', yMax: 1, series: series((cell) => cell.accuracy, (cell) => ({ low: cell.low, high: cell.high })) },
    { title: 'Prompt tokens per request', yLabel: 'tokens (provider usage)', series: series((cell) => cell.meanPromptTokens) },
  ];
}

function offlinePanels(run: RoutingRun): [Panel, Panel] {
  const k = [...run.recallAt].filter((value) => value <= run.topK).pop() ?? run.recallAt[0]!;
  const retrievers = [...new Set(run.recall.map((cell) => cell.retriever))];
  const recall: Series[] = retrievers.flatMap((retriever, index) =>
    run.kinds.map((kind) => {
      const cells = run.sizes.map((size) => run.recall.find((cell) => cell.retriever === retriever && cell.kind === kind && cell.size === size));
      const hitsAt = (cell: (typeof cells)[number]) => cell?.hits.find((hit) => hit.k === k);
      return {
        label: `${retriever} recall@${k}, ${kind}`,
        colour: COLOURS[index % COLOURS.length]!,
        dashed: kind === 'confusable',
        values: cells.map((cell) => hitsAt(cell)?.recall ?? null),
        intervals: cells.map((cell) => {
          const at = hitsAt(cell);
          return cell === undefined || at === undefined || at.recall === null ? null : wilsonInterval(at.hits, cell.requests);
        }),
      };
    }),
  );
  const tokens: Series[] = (['nativeTokens', 'constrainedTokens'] as const).flatMap((field, index) =>
    run.kinds.map((kind) => ({
      label: `${field === 'nativeTokens' ? 'native tools field' : 'constrained listing'}, ${kind}`,
      colour: COLOURS[(retrievers.length + index) % COLOURS.length]!,
      dashed: kind === 'confusable',
      values: run.sizes.map((size) => run.catalogCosts.find((cost) => cost.kind === kind && cost.size === size)?.[field] ?? null),
    })),
  );
  return [
    { title: `Right tool within the first ${k} (retrieval), 95% Wilson intervals`, yLabel: 'share of requests', yMax: 1, series: recall },
    { title: 'Catalog tokens (o200k)', yLabel: 'tokens', series: tokens },
  ];
}

function drawPanel(panel: Panel, sizes: readonly number[], x0: number): string {
  const values = panel.series.flatMap((series) => series.values.filter((value): value is number => value !== null));
  const yMax = panel.yMax ?? niceCeiling(Math.max(1, ...values));
  const xAt = (index: number): number => x0 + (sizes.length === 1 ? PANEL_WIDTH / 2 : (index * PANEL_WIDTH) / (sizes.length - 1));
  const yAt = (value: number): number => TOP + PLOT_HEIGHT - (value / yMax) * PLOT_HEIGHT;
  const parts = [`<text x="${x0}" y="${TOP - 20}" font-size="14" font-weight="bold">${escapeXml(panel.title)}</text>`];
  for (let tick = 0; tick <= 4; tick++) {
    const value = (yMax * tick) / 4;
    const y = round(yAt(value));
    parts.push(`<line x1="${x0}" y1="${y}" x2="${x0 + PANEL_WIDTH}" y2="${y}" stroke="#dddddd"/>`);
    parts.push(`<text x="${x0 - 6}" y="${y + 4}" text-anchor="end">${formatTick(value, yMax)}</text>`);
  }
  sizes.forEach((size, index) => parts.push(`<text x="${round(xAt(index))}" y="${TOP + PLOT_HEIGHT + 18}" text-anchor="middle">${size}</text>`));
  parts.push(`<text x="${x0 + PANEL_WIDTH / 2}" y="${TOP + PLOT_HEIGHT + 36}" text-anchor="middle">tools offered (catalog size)</text>`);
  parts.push(`<text transform="translate(${x0 - 54} ${TOP + PLOT_HEIGHT / 2}) rotate(-90)" text-anchor="middle">${escapeXml(panel.yLabel)}</text>`);
  for (const series of panel.series) {
    const points = series.values.flatMap((value, index) => (value === null ? [] : [`${round(xAt(index))},${round(yAt(value))}`]));
    if (points.length > 1) parts.push(`<polyline fill="none" stroke="${series.colour}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ''} points="${points.join(' ')}"/>`);
    // Error bars under the points: a vertical line from low to high with short caps.
    series.intervals?.forEach((interval, index) => {
      if (interval === null || series.values[index] === null) return;
      const x = round(xAt(index));
      const [top, bottom] = [round(yAt(interval.high)), round(yAt(interval.low))];
      parts.push(
        `<path d="M${x},${top}V${bottom}M${round(x - 4)},${top}H${round(x + 4)}M${round(x - 4)},${bottom}H${round(x + 4)}" stroke="${series.colour}" stroke-width="1" fill="none"${series.dashed ? ' opacity="0.7"' : ''}><title>${escapeXml(`${series.label}: 95% interval ${formatShare(interval.low)} to ${formatShare(interval.high)}`)}</title></path>`,
      );
    });
    for (const point of points) {
      const [cx, cy] = point.split(',');
      parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${series.colour}"><title>${escapeXml(series.label)}</title></circle>`);
    }
  }
  return parts.join('\n');
}

/** The smallest of 1, 2, 2.5 or 5 times a power of ten that is at least `value`. */
function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 2.5, 5, 10].find((step) => step * power >= value) ?? 10) * power;
}

function formatTick(value: number, max: number): string {
  return max <= 1 ? value.toFixed(2) : Math.round(value).toLocaleString('en-US');
}

function formatShare(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[char]!);
}
