// The setting of the real-peer suite: a temp folder with a 1 MB text file and a small tree (served
// by the reference filesystem server), a seeded knowledge graph (the reference memory server), and
// a gateway config made from examples/gateway/gateway.yaml: its rules as written, its upstreams
// replaced by the reference servers everything, filesystem (as `files`, the name its rules use)
// and memory.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { PROJECT_ROOT } from '../../support/real-servers.js';
import { seededRandom } from '../../support/seeded-random.js';
import { markEnvEntries, tempDir } from '../_gateway-process.js';

export const EXAMPLE_CONFIG = join(PROJECT_ROOT, 'examples/gateway/gateway.yaml');

/** Over 1 MB, so it is over the example's maxTokens for files__read_text_file and its cap. */
const BIG_TEXT_CHARS = 1024 * 1024;
/** The memory graph: enough entities that read_graph is over the example's capTokens of 25,000. */
const ENTITY_COUNT = 600;

export interface TreeEntry {
  readonly name: string;
  readonly type: 'file' | 'directory';
}

export interface SeededEntity {
  readonly name: string;
  readonly entityType: string;
  readonly observations: readonly string[];
}

export interface PeerWorkspace {
  readonly dir: string;
  /** The folder the filesystem server serves. */
  readonly dataDir: string;
  readonly bigFile: string;
  readonly bigText: string;
  readonly treeDir: string;
  /** The top level of the tree under treeDir (names and types, in no particular order). */
  readonly treeTop: readonly TreeEntry[];
  readonly entities: readonly SeededEntity[];
  readonly configFile: string;
  readonly receiptsFile: string;
}

export interface WorkspaceOptions {
  /** Rules added under `tools:` (keyed by the name the client sees), next to the example's. */
  readonly extraRules?: Record<string, unknown>;
}

/** Lines of words from a seeded generator, some with accents and astral characters, ending in a marker. */
function bigText(): string {
  const random = seededRandom(31);
  const words = ['gateway', 'token', 'offload', 'cursor', 'page', 'result', 'héllo', 'naïve', '🌍', 'λ', 'data', 'line'];
  const lines: string[] = [];
  let length = 0;
  for (let line = 0; length < BIG_TEXT_CHARS; line += 1) {
    const count = 4 + Math.floor(random() * 12);
    const text = `${line}: ${Array.from({ length: count }, () => words[Math.floor(random() * words.length)]).join(' ')}`;
    lines.push(text);
    length += text.length + 1;
  }
  // No newline at the end: the last character is the last one of this marker.
  return `${lines.join('\n')}\nTHE LAST LINE ends here: Ω`;
}

function seededEntities(): SeededEntity[] {
  return Array.from({ length: ENTITY_COUNT }, (_, index) => ({
    name: `entity-${index}`,
    entityType: index % 3 === 0 ? 'person' : index % 3 === 1 ? 'place' : 'project',
    observations: [`entity ${index} was seen near the river on day ${index % 31}`, `entity ${index} keeps notes about offloading large results`, `observation three of ${index}`],
  }));
}

function writeTree(treeDir: string): TreeEntry[] {
  mkdirSync(join(treeDir, 'alpha', 'inner'), { recursive: true });
  mkdirSync(join(treeDir, 'beta'), { recursive: true });
  writeFileSync(join(treeDir, 'alpha', 'one.txt'), 'one');
  writeFileSync(join(treeDir, 'alpha', 'inner', 'two.txt'), 'two');
  writeFileSync(join(treeDir, 'beta', 'three.md'), '# three');
  writeFileSync(join(treeDir, 'notes.txt'), 'notes');
  return [
    { name: 'alpha', type: 'directory' },
    { name: 'beta', type: 'directory' },
    { name: 'notes.txt', type: 'file' },
  ];
}

function referenceEntry(name: 'everything' | 'filesystem' | 'memory', args: string[], env: Record<string, string> = {}): Record<string, unknown> {
  return {
    command: process.execPath,
    args: [join(PROJECT_ROOT, `node_modules/@modelcontextprotocol/server-${name}/dist/index.js`), ...args],
    // The gateway passes only named variables on: the test mark lets the leak check find them.
    env: { ...markEnvEntries(), ...env },
  };
}

/**
 * The example's config with the upstreams replaced. Its `files` server keeps its env and gets the
 * temp folder; `prs` (a pull-request server of the examples) is replaced by everything, so its
 * rules go (they name tools no server here has); every other key is kept as written.
 */
function derivedConfig(dataDir: string, memoryFile: string, extraRules: Record<string, unknown>): Record<string, unknown> {
  const example = parse(readFileSync(EXAMPLE_CONFIG, 'utf8')) as Record<string, unknown>;
  const servers = example.mcpServers as Record<string, { env?: Record<string, string> }>;
  const filesEnv = servers.files?.env ?? {};
  const tools = Object.fromEntries(Object.entries((example.tools ?? {}) as Record<string, unknown>).filter(([name]) => !name.startsWith('prs__')));
  return {
    ...example,
    mcpServers: {
      everything: referenceEntry('everything', []),
      files: referenceEntry('filesystem', [dataDir], filesEnv),
      memory: referenceEntry('memory', [], { MEMORY_FILE_PATH: memoryFile }),
    },
    tools: { ...tools, ...extraRules },
  };
}

export function peerWorkspace(options: WorkspaceOptions = {}): PeerWorkspace {
  const dir = tempDir('mcpctx-real-peers-');
  const dataDir = join(dir, 'data');
  const treeDir = join(dataDir, 'tree');
  mkdirSync(treeDir, { recursive: true });
  const text = bigText();
  const bigFile = join(dataDir, 'big.txt');
  writeFileSync(bigFile, text);
  const treeTop = writeTree(treeDir);
  const entities = seededEntities();
  const memoryFile = join(dir, 'memory.jsonl');
  writeFileSync(memoryFile, entities.map((entity) => JSON.stringify({ type: 'entity', ...entity })).join('\n') + '\n');
  const configFile = join(dir, 'gateway.yaml');
  writeFileSync(configFile, stringify(derivedConfig(dataDir, memoryFile, options.extraRules ?? {})));
  return { dir, dataDir, bigFile, bigText: text, treeDir, treeTop, entities, configFile, receiptsFile: join(dir, 'receipts.jsonl') };
}
