/**
 * The gateway config `wrap` writes: where it lives (the user's config folder, named by client,
 * scope and a short hash of the client file's path), its text (YAML with a header saying it holds
 * env values), and its check by the gateway's own parser before anything is written.
 */
import { posix, win32 } from 'node:path';
import { stringify } from 'yaml';
import { userConfigFolder } from '../config/index.js';
import { parseGatewayConfig } from '../gateway/config/index.js';
import { isMcpctxError } from '../errors/index.js';
import { sha256Hex } from '../tokens/index.js';
import type { AuditRoots, ProposedGateway } from '../audit/index.js';
import type { GatewayServer } from './_raw-entry.js';

/** `$XDG_CONFIG_HOME/mcpctx/wrap` (else `~/.config/...`), `~/Library/Application Support/mcpctx/wrap`, `%APPDATA%\mcpctx\wrap`. */
export function wrapFolder(roots: AuditRoots, env: Readonly<Record<string, string | undefined>>): string {
  return (roots.platform === 'win32' ? win32.join : posix.join)(userConfigFolder(roots, env), 'wrap');
}

export function gatewayConfigPath(roots: AuditRoots, env: Readonly<Record<string, string | undefined>>, client: string, scope: string, clientFile: string): string {
  const hash = sha256Hex(clientFile).slice(0, 8);
  const join = roots.platform === 'win32' ? win32.join : posix.join;
  return join(wrapFolder(roots, env), `${client}-${scope}-${hash}.yaml`);
}

export interface GatewayDocument {
  mcpServers: Record<string, GatewayServer>;
  rules: ProposedGateway;
}

function documentOf(servers: Record<string, GatewayServer>, rules: ProposedGateway): Record<string, unknown> {
  const document: Record<string, unknown> = { mcpServers: servers, capTokens: rules.capTokens };
  if (rules.search.enabled) document.search = { enabled: true };
  if (rules.allow !== undefined) document.allow = rules.allow;
  if (rules.deny.length > 0) document.deny = rules.deny;
  return document;
}

export function gatewayYamlText(servers: Record<string, GatewayServer>, rules: ProposedGateway, about: { client: string; scope: string; clientFile: string }): string {
  const header = [
    `# Written by \`mcpctx gateway wrap --client ${about.client} --scope ${about.scope}\` for ${about.clientFile}.`,
    '# It holds env values copied from that file (mode 0600): keep it private.',
    `# Search: ${rules.search.enabled ? 'on' : 'off'} (${rules.search.why}).`,
    `# Undo: mcpctx gateway unwrap --client ${about.client} --scope ${about.scope}`,
  ];
  return `${header.join('\n')}\n${stringify(documentOf(servers, rules), { lineWidth: 0 })}`;
}

/** Problems the gateway's parser finds in `text` (paths and reasons: it never echoes values), empty when it loads. */
export function gatewayProblems(text: string, file: string): string[] {
  try {
    parseGatewayConfig(text, { file });
    return [];
  } catch (error) {
    if (isMcpctxError(error) && error.code === 'INVALID_CONFIG') {
      const problems = (error.data as { problems?: Array<{ path: string; reason: string }> } | undefined)?.problems ?? [];
      return problems.length > 0 ? problems.map((problem) => `${problem.path}: ${problem.reason}`) : [error.message];
    }
    throw error;
  }
}
