/**
 * `gateway wrap`'s plan: everything decided and every text built, nothing written. One place of
 * one client is fronted; its entries that the client's session loads and mcpctx can launch go to
 * the gateway config, the others stay in the file and are listed with why.
 */
import { redact, unifiedDiff } from '../text/index.js';
import { realpath, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { McpctxError } from '../errors/index.js';
import {
  measureEntryTokens,
  proposeGatewayRules,
  readClientSession,
  resolveRoots,
  whyNotLaunched,
  wrapManifestPath,
  WRAP_BACKUP_SUFFIX,
  type ConfigEntry,
  type PlaceReport,
  type SessionComposition,
} from '../audit/index.js';
import { editClientText } from './_client-edit.js';
import { gatewayConfigPath, gatewayProblems, gatewayYamlText } from './_gateway-yaml.js';
import { clientOnlyLaunch, documentSecrets, gatewayServerOf, parseClientDocument, rawServers, type GatewayServer } from './_raw-entry.js';
import { GATEWAY_ENTRY, WRAP_CLIENTS, type GatewayLaunch, type NotFronted, type WrapClient, type WrapOptions, type WrapPlan, type WrapRefusal } from './_types.js';
import { exists, sha256 } from './_files.js';

/** This node and the mcpctx CLI this module belongs to (dist/wrap/ -> dist/cli/main.js). */
export function defaultLaunch(): GatewayLaunch {
  return { command: process.execPath, args: [fileURLToPath(new URL('../cli/main.js', import.meta.url))] };
}

export function isWrapClient(client: string): client is WrapClient {
  return (WRAP_CLIENTS as readonly string[]).includes(client);
}

function usage(refused: string): WrapRefusal {
  return { refused, kind: 'usage' };
}

function state(refused: string): WrapRefusal {
  return { refused, kind: 'state' };
}

/** `claude-code --scope local` */
function scopeHint(place: PlaceReport): string {
  return `--scope ${place.scope} (${place.path}: ${place.entries.length} server${place.entries.length === 1 ? '' : 's'})`;
}

/** The one place to front, or why none. */
export function choosePlace(client: WrapClient, places: readonly PlaceReport[], scope: string | undefined): PlaceReport | WrapRefusal {
  const scopes = [...new Set(places.map((place) => place.scope))];
  if (scope !== undefined && !scopes.includes(scope)) return usage(`${client} has no ${scope} scope; its scopes: ${scopes.join(', ')}`);
  const inScope = places.filter((place) => scope === undefined || place.scope === scope);
  const withServers = inScope.filter((place) => place.state.state === 'read' && place.entries.length > 0);
  if (scope !== undefined && withServers.length === 0) {
    const unreadable = inScope.find((place) => place.state.state === 'unreadable');
    if (unreadable !== undefined && unreadable.state.state === 'unreadable') return { refused: `${unreadable.path} cannot be read: ${unreadable.state.why}`, kind: 'io' };
  }
  if (withServers.length === 0) return state(`${client}${scope === undefined ? '' : ` (${scope})`} has no servers to front: ${inScope.map((place) => `${place.path} ${place.state.state === 'read' ? 'has none' : place.state.state}`).join('; ')}`);
  if (withServers.length > 1 && new Set(withServers.map((place) => place.scope)).size === 1) {
    // VS Code's user scope is two files (mcp.json and settings.json's mcp.servers): a scope cannot tell them apart.
    return state(`${client} has servers in ${withServers.length} files of its ${withServers[0]?.scope ?? ''} scope (${withServers.map((place) => place.path).join(', ')}); wrap rewrites one file: move the servers into one of them first`);
  }
  if (withServers.length > 1) {
    const hints = withServers.map(scopeHint);
    return usage(`${client} has servers in ${withServers.length} places; say which with ${hints.join(', or ')}`);
  }
  const place = withServers[0] as PlaceReport;
  if (place.scope === 'managed') return state(`${place.path} is Claude Code's managed MCP file, set by an administrator: wrap does not edit it`);
  return place;
}

/** Why an entry of the place is left in the file, or undefined when the gateway fronts it. */
function whyNotFronted(entry: ConfigEntry, composition: SessionComposition): string | undefined {
  if (entry.name === GATEWAY_ENTRY) return 'it is the gateway entry wrap adds';
  if (!composition.loaded.includes(entry)) {
    if (entry.disabled) return entry.disabledBy === undefined ? 'disabled in the file' : `turned off by ${entry.disabledBy}`;
    if (entry.pendingApproval !== undefined) return `not loaded: ${entry.pendingApproval}`;
    const denied = composition.denied.find((item) => item.name === entry.name && item.path === entry.path);
    if (denied !== undefined) return `denied by ${denied.rule} in ${denied.source}`;
    const shadowed = composition.shadowed.find((item) => item.name === entry.name && item.path === entry.path);
    if (shadowed !== undefined) return `shadowed by ${shadowed.by}`;
    return 'the session does not load it';
  }
  const unlaunched = whyNotLaunched(entry);
  if (unlaunched === undefined) return undefined;
  return 'detail' in unlaunched ? `${unlaunched.reason}: ${unlaunched.detail}` : unlaunched.reason;
}

async function readBytes(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new McpctxError('IO', `Cannot read ${path}: ${(error as Error).message}`, { file: path }, { cause: error });
  }
}

export async function planWrap(options: WrapOptions): Promise<WrapPlan | WrapRefusal> {
  const client = options.client;
  if (client === 'custom') return usage('a file given with --config has no client to rewrite; wrap takes a client: ' + WRAP_CLIENTS.join(', '));
  if (!isWrapClient(client)) return usage(`unknown client "${client}"; wrap takes: ${WRAP_CLIENTS.join(', ')}`);
  const roots = resolveRoots(options.roots);
  const env = options.env ?? process.env;
  const session = await readClientSession(roots, client);
  const chosen = choosePlace(client, session.places, options.scope);
  if ('refused' in chosen) return chosen;
  const place = chosen;
  const composition = session.composition;
  if (composition === undefined) return state(`${client}'s session could not be composed`);
  if (composition.refused !== undefined) return state(composition.refused);

  const backupPath = `${place.path}${WRAP_BACKUP_SUFFIX}`;
  const manifestPath = wrapManifestPath(place.path);
  if ((await exists(backupPath)) || (await exists(manifestPath))) {
    return state(`${place.path} is already wrapped (${await exists(manifestPath) ? manifestPath : backupPath} exists); run gateway unwrap --client ${client} --scope ${place.scope} first`);
  }
  if (place.entries.some((entry) => entry.name === GATEWAY_ENTRY)) return state(`${place.path} already has an entry named ${GATEWAY_ENTRY}`);

  const target = await realpath(place.path).catch(() => place.path);
  const originalBytes = await readBytes(target);
  const text = originalBytes.toString('utf8');
  const document = parseClientDocument(text, place.format);
  if (document === undefined) return { refused: `${place.path} no longer parses as ${place.format}`, kind: 'io' };
  const raws = rawServers(document, place.serversAt);
  const gatewayPath = gatewayConfigPath(roots, env, client, place.scope, place.path);
  const folders = { workspaceFolder: roots.cwd, userHome: roots.home, startFolder: roots.cwd };

  const notFronted: NotFronted[] = [];
  const candidates: Array<{ entry: ConfigEntry; server: GatewayServer }> = [];
  for (const entry of place.entries) {
    const raw = raws.get(entry.name);
    const why = raw === undefined ? 'not an object in the file' : (whyNotFronted(entry, composition) ?? clientOnlyLaunch(raw));
    if (why !== undefined || raw === undefined) {
      notFronted.push({ name: entry.name, why: why ?? 'not found' });
      continue;
    }
    const server = gatewayServerOf(raw, client, folders);
    const problems = gatewayProblems(gatewayYamlText({ [entry.name]: server }, proposeGatewayRules([], { measured: false }), { client, scope: place.scope, clientFile: place.path }), gatewayPath);
    if (problems.length > 0) notFronted.push({ name: entry.name, why: `the gateway config would not take it: ${problems.join('; ')}` });
    else candidates.push({ entry, server });
  }
  if (candidates.length === 0) return state(`nothing in ${place.path} can be fronted: ${notFronted.map((item) => `${item.name} (${item.why})`).join('; ')}`);

  const measured = options.measure !== false;
  const tokens = measured
    ? await measureEntryTokens(
        candidates.map(({ entry }) => entry),
        { ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }), runs: options.runs ?? 1, ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }), ...(options.measureWith === undefined ? {} : { measureWith: options.measureWith }), ...options.progress },
      )
    : new Map<string, number | undefined>();
  const fronted = candidates.map(({ entry }) => {
    const count = tokens.get(entry.name);
    return count === undefined ? { name: entry.name } : { name: entry.name, tokens: count };
  });
  const rules = proposeGatewayRules(
    candidates.map(({ entry }, index) => ({
      ...(fronted[index] ?? { name: entry.name }),
      ...(entry.toolFilter?.include === undefined ? {} : { includeTools: entry.toolFilter.include }),
      ...(entry.toolFilter?.exclude === undefined ? {} : { excludeTools: entry.toolFilter.exclude }),
    })),
    { measured, ...(options.searchAbove === undefined ? {} : { searchAbove: options.searchAbove }), ...(options.capTokens === undefined ? {} : { capTokens: options.capTokens }), deny: options.deny ?? [] },
  );
  const servers = Object.fromEntries(candidates.map(({ entry, server }) => [entry.name, server]));
  const gatewayText = gatewayYamlText(servers, rules, { client, scope: place.scope, clientFile: place.path });
  const problems = gatewayProblems(gatewayText, gatewayPath);
  if (problems.length > 0) return usage(`the gateway config would be invalid: ${problems.join('; ')}`);

  const launch = options.launch ?? defaultLaunch();
  const gatewayLaunch: GatewayLaunch = { command: launch.command, args: [...launch.args, 'gateway', '--config', gatewayPath] };
  const edited = editClientText(text, {
    client,
    format: place.format,
    serversAt: place.serversAt,
    remove: candidates.map(({ entry }) => entry.name),
    add: { name: GATEWAY_ENTRY, command: gatewayLaunch.command, args: gatewayLaunch.args },
  });
  if ('refused' in edited) return state(`${place.path} cannot be rewritten: ${edited.refused}`);
  // The editor keeps every byte it does not edit, a byte order mark included.
  const wrappedText = edited.text;

  const secrets = documentSecrets(document);
  return {
    client,
    scope: place.scope,
    path: place.path,
    target,
    format: place.format,
    serversAt: [...place.serversAt],
    backupPath,
    manifestPath,
    gatewayConfigPath: gatewayPath,
    gatewayEntry: GATEWAY_ENTRY,
    gatewayLaunch,
    fronted,
    notFronted,
    rules,
    measured,
    originalSha256: sha256(originalBytes),
    wrappedSha256: sha256(Buffer.from(wrappedText, 'utf8')),
    clientDiff: redact(unifiedDiff(text, wrappedText, { before: place.path, after: `${place.path} (wrapped)` }), secrets),
    gatewayDiff: redact(unifiedDiff('', gatewayText, { before: '/dev/null', after: gatewayPath }), secrets),
    originalBytes,
    wrappedText,
    gatewayText,
  };
}

