import { readFile, stat } from 'node:fs/promises';
import { McpctxError } from '../../errors/index.js';
import { captureCatalog } from '../../measure/index.js';
import { DEFAULT_PROTOCOL_VERSION } from '../../mcp/index.js';
import { isPlainObject } from '../../json/index.js';
import { invalidConfig, type ConfigProblem } from './_config.js';
import type { RoutingConfig, RoutingTool, RoutingTools, ToolSource } from '../_types.js';

/** A catalog file holds tool definitions; the largest real ones are a few hundred kilobytes. */
export const MAX_CATALOG_FILE_BYTES = 16 * 1024 * 1024;
/** Most tools one source may give. */
export const MAX_SOURCE_TOOLS = 10_000;

/**
 * The tools of one catalog file's JSON, in any of the forms catalogs are kept in: a bare array
 * of tools, an object with `tools` (a `tools/list` result, or a snapshot with server facts beside
 * it), or a whole JSON-RPC response whose `result` has `tools`. Undefined for anything else.
 */
export function toolsOfCatalog(document: unknown): unknown[] | undefined {
  if (Array.isArray(document)) return document;
  if (!isPlainObject(document)) return undefined;
  if (Array.isArray(document.tools)) return document.tools;
  if (isPlainObject(document.result) && Array.isArray(document.result.tools)) return document.result.tools;
  return undefined;
}

/**
 * One tool definition checked and reduced to what routing uses. Problems go to `problems` under
 * `path`; an unusable tool gives undefined.
 */
function routingTool(raw: unknown, path: string, problems: ConfigProblem[]): RoutingTool | undefined {
  if (!isPlainObject(raw)) {
    problems.push({ path, reason: 'must be a tool object {name, description, inputSchema}' });
    return undefined;
  }
  if (typeof raw.name !== 'string' || raw.name.trim() === '') {
    problems.push({ path, reason: 'has no name; every tool needs a non-empty string name' });
    return undefined;
  }
  if (raw.description !== undefined && typeof raw.description !== 'string') problems.push({ path: `${path}.description`, reason: 'must be a string' });
  if (raw.inputSchema !== undefined && !isPlainObject(raw.inputSchema)) problems.push({ path: `${path}.inputSchema`, reason: 'must be a JSON Schema object' });
  const annotations = isPlainObject(raw.annotations) ? raw.annotations : {};
  const title = typeof raw.title === 'string' ? raw.title : typeof annotations.title === 'string' ? annotations.title : undefined;
  return {
    name: raw.name,
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    ...(title === undefined ? {} : { title }),
    inputSchema: isPlainObject(raw.inputSchema) ? raw.inputSchema : { type: 'object', properties: {} },
  };
}

async function rawToolsOf(source: ToolSource, path: string, problems: ConfigProblem[]): Promise<unknown[]> {
  if (source.kind === 'inline') return [...source.tools];
  if (source.kind === 'catalog') {
    let text: string;
    try {
      const info = await stat(source.file);
      if (info.size > MAX_CATALOG_FILE_BYTES) {
        problems.push({ path, reason: `catalog ${source.file} is ${info.size} bytes, over ${MAX_CATALOG_FILE_BYTES}` });
        return [];
      }
      text = await readFile(source.file, 'utf8');
    } catch (error) {
      problems.push({ path, reason: `cannot read the catalog ${source.file}: ${(error as Error).message}` });
      return [];
    }
    let document: unknown;
    try {
      document = JSON.parse(text) as unknown;
    } catch (error) {
      problems.push({ path, reason: `catalog ${source.file} is not JSON: ${(error as Error).message}` });
      return [];
    }
    const tools = toolsOfCatalog(document);
    if (tools === undefined) problems.push({ path, reason: `catalog ${source.file} holds no tools: expected an array of tools, {tools: [...]} or a tools/list response` });
    return tools ?? [];
  }
  // A server is launched once, listed (every page) and shut down, as `mcpctx measure` does it.
  const capture = await captureCatalog({
    launch: source.launch,
    protocolVersion: DEFAULT_PROTOCOL_VERSION,
    clientCapabilities: {},
    timeoutMs: source.timeoutMs,
    maxTools: MAX_SOURCE_TOOLS,
  });
  if (capture.error || !capture.tools) {
    const cause = capture.error?.message ?? 'no tools';
    throw new McpctxError('IO', `${path}: the server ${source.launch.command} gave no catalog (${capture.failedStep ?? 'start'}): ${cause}`, { path, step: capture.failedStep ?? null }, { cause: capture.error });
  }
  return capture.tools;
}

/**
 * Loads the domain tools and the distractor pools a config names, and checks what needs them:
 * every tool has a name, no name is in two places, every request names a domain tool (or none),
 * and every size fits between the domain and the pools. All problems throw one INVALID_CONFIG;
 * a server that cannot be captured throws IO.
 */
export async function loadRoutingTools(config: RoutingConfig): Promise<RoutingTools> {
  const problems: ConfigProblem[] = [];
  const load = async (source: ToolSource | undefined, path: string): Promise<RoutingTool[]> => {
    if (source === undefined) return [];
    const raw = await rawToolsOf(source, path, problems);
    if (raw.length > MAX_SOURCE_TOOLS) {
      problems.push({ path, reason: `has ${raw.length} tools, at most ${MAX_SOURCE_TOOLS}` });
      return [];
    }
    const tools: RoutingTool[] = [];
    raw.forEach((item, index) => {
      const tool = routingTool(item, `${path}.tools[${index}]`, problems);
      if (tool) tools.push(tool);
    });
    return tools;
  };
  const tools: RoutingTools = {
    domain: await load(config.domain, 'domain'),
    unrelated: await load(config.distractors.unrelated, 'distractors.unrelated'),
    confusable: await load(config.distractors.confusable, 'distractors.confusable'),
  };
  checkTools(config, tools, problems);
  if (problems.length > 0) throw invalidConfig(problems, config.file);
  return tools;
}

function checkTools(config: RoutingConfig, tools: RoutingTools, problems: ConfigProblem[]): void {
  if (tools.domain.length === 0) problems.push({ path: 'domain', reason: 'gives no tools' });
  const where = new Map<string, string>();
  for (const [place, list] of Object.entries(tools) as Array<[keyof RoutingTools, readonly RoutingTool[]]>) {
    for (const tool of list) {
      const seen = where.get(tool.name);
      if (seen !== undefined) problems.push({ path: place === 'domain' ? 'domain' : `distractors.${place}`, reason: `tool ${JSON.stringify(tool.name)} is also in ${seen}; a name must be unique across the domain and the pools` });
      else where.set(tool.name, place === 'domain' ? 'domain' : `distractors.${place}`);
    }
  }
  const domainNames = new Set(tools.domain.map((tool) => tool.name));
  config.requests.forEach((request, index) => {
    if (request.tool !== null && !domainNames.has(request.tool)) {
      problems.push({ path: `requests[${index}].tool`, reason: `${JSON.stringify(request.tool)} is not a domain tool; use one of the domain's names, or none` });
    }
  });
  const domainSize = tools.domain.length;
  const room = {
    unrelated: tools.unrelated.length,
    confusable: tools.confusable.length + tools.unrelated.length,
  };
  const none = config.distractors.unrelated === undefined && config.distractors.confusable === undefined;
  config.sizes.forEach((size) => {
    if (size < domainSize) problems.push({ path: 'sizes', reason: `${size} is below the ${domainSize} domain tools; every size holds all of them` });
    else if (none && size !== domainSize) problems.push({ path: 'sizes', reason: `${size} needs distractors: with no pools every size is the domain's ${domainSize}` });
    for (const kind of ['unrelated', 'confusable'] as const) {
      if (config.distractors[kind] !== undefined && size - domainSize > room[kind]) {
        problems.push({ path: 'sizes', reason: `${size} needs ${size - domainSize} ${kind} distractors; the pools give ${room[kind]}` });
      }
    }
  });
}
