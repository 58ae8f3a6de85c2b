import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { childEnvironment, redactUrl, redactUrlIn } from '../../mcp/index.js';
import type { ResolvedUpstream } from '../config/index.js';

/** How long the start-up probe of an HTTP upstream may take. */
const HTTP_PROBE_MS = 5_000;

/**
 * Before anything is served: a stdio upstream's command must resolve to an executable file, an
 * HTTP upstream must answer at all (any status: 401 or 405 still proves it is there). Nothing is
 * started, so a failure leaves nothing behind. UNREACHABLE names the upstream and why.
 */
export async function checkReachable(upstream: ResolvedUpstream): Promise<void> {
  if (upstream.kind === 'stdio') {
    const { command, cwd } = upstream.launch;
    if (findExecutable(command, cwd, childEnvironment(upstream.launch).PATH ?? '') === undefined) {
      throw new McpctxError('UNREACHABLE', `upstream ${upstream.name}: the command ${JSON.stringify(command)} was not found or is not executable`, {
        upstream: upstream.name,
      });
    }
    return;
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), HTTP_PROBE_MS);
  try {
    const response = await fetch(upstream.url, { method: 'GET', headers: { accept: 'text/event-stream' }, signal: controller.signal });
    await response.body?.cancel().catch(() => {});
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    // Named as `gateway check` shows it: host, port and path; fetch's own message may quote it whole.
    const why = controller.signal.aborted ? `no answer within ${HTTP_PROBE_MS} ms` : redactUrlIn(cause, upstream.url);
    throw new McpctxError('UNREACHABLE', `upstream ${upstream.name}: ${redactUrl(upstream.url).url} cannot be reached (${why})`, {
      upstream: upstream.name,
    });
  } finally {
    clearTimeout(timer);
  }
}

function findExecutable(command: string, cwd: string | undefined, pathList: string): string | undefined {
  const candidates = command.includes('/') ? [isAbsolute(command) ? command : resolve(cwd ?? process.cwd(), command)] : pathList.split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}
