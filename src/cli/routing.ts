import type { Command } from 'commander';
import { loadRoutingConfig, runRouting, type RecallCell, type RoutingRun } from '../routing/index.js';
import { EXIT, type CliIo } from './_io.js';
import { renderTable, type Column } from './_table.js';

interface RoutingFlags {
  config: string;
  json?: boolean;
}

export function registerRouting(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('routing')
    .summary('measure how catalog size, distractors and retrieval change which tool is chosen')
    .description(
      [
        'Run the tool-routing experiment a config describes (YAML or JSON): the domain tools (a catalog file or an MCP server to capture them from), the distractor pools (unrelated: tools of other domains; confusable: tools that resemble a domain tool), the requests with their right tool (or none), the catalog sizes, the retrieval settings and a seed.',
        'Each size pads the domain tools with distractors (confusable ones first, then unrelated ones, for the confusable kind), and every request gets its own seeded order of its catalog, so the same seed gives the same catalogs byte for byte.',
        'Without a provider the run is offline: every retriever (BM25, the ranking the gateway\'s search_tools uses; embeddings from an OpenAI-compatible /embeddings endpoint if the config asks for them) ranks every catalog for every request, and recall@k (the share of requests whose right tool is within the first k) is printed per retriever, distractor kind and size. Requests that need no tool are left out of recall.',
        'See examples/routing/config.yaml for a complete config.',
        'Exit codes: 0 done; 2 usage error or invalid config (every problem listed); 3 a catalog server or endpoint failed.',
      ].join('\n\n'),
    )
    .requiredOption('--config <file>', 'the routing config (YAML or JSON)')
    .option('--json', 'print the whole run as JSON (catalog orders, every ranking, recall tables)')
    .action(async (flags: RoutingFlags) => {
      const config = await loadRoutingConfig(flags.config, io.cwd);
      const run = await runRouting({ config, env: io.env });
      io.stdout.write(flags.json ? `${JSON.stringify(run, null, 2)}\n` : renderRecall(run));
      setExit(EXIT.ok);
    });
}

/** One table per retriever: a row per kind and size, a column per k. */
export function renderRecall(run: RoutingRun): string {
  const withTool = new Set(run.retrieval.filter((row) => row.expected !== null).map((row) => row.requestId)).size;
  const requests = new Set(run.catalogs.map((catalog) => catalog.requestId)).size;
  const lines = [
    `routing: ${run.tools.domain.length} domain tools, ${requests} requests (${withTool} with a right tool, ${requests - withTool} needing none), seed ${run.seed}`,
    `pools: ${run.tools.unrelated.length} unrelated, ${run.tools.confusable.length} confusable; sizes ${run.sizes.join(', ')}`,
    '',
  ];
  const retrievers = [...new Set(run.recall.map((cell) => cell.retriever))];
  for (const retriever of retrievers) {
    const cells = run.recall.filter((cell) => cell.retriever === retriever);
    const columns: Column[] = [{ header: 'kind' }, { header: 'size', align: 'right' }, { header: 'n', align: 'right' }, ...run.recallAt.map((k) => ({ header: `recall@${k}`, align: 'right' as const }))];
    lines.push(`${retriever}: recall@k (right tool within the first k)`);
    lines.push(renderTable(columns, cells.map((cell) => [cell.kind, String(cell.size), String(cell.requests), ...cell.hits.map((hit) => formatRecall(hit, cell.requests))])));
  }
  return `${lines.join('\n')}`;
}

function formatRecall(hit: RecallCell['hits'][number], requests: number): string {
  return hit.recall === null ? '-' : `${hit.recall.toFixed(3)} (${hit.hits}/${requests})`;
}
