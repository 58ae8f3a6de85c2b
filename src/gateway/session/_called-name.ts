import { type McpctxError } from '../../errors/index.js';
import { JsonRpcError, jsonRpcErrorFrom } from '../../mcp/index.js';
import type { JsonObject } from '../../json/index.js';
import type { CallTarget } from './_call.js';
import { shownName } from './_refusal.js';

/**
 * A tool no upstream listed is relayed under its upstream's own name (`fs__nope` goes to fs as
 * `nope`); the upstream's answer then speaks of a name the client never used. Its error is
 * answered under the called name, with the upstream's own words kept after it.
 */
function renamedUnlisted(target: CallTarget): boolean {
  return target.listing === 'unlisted' && target.name !== target.ownName;
}

function calledAs(target: CallTarget): string {
  return `${shownName(target.name)} is not a tool ${target.upstream} lists (the gateway sent it to ${target.upstream} as ${JSON.stringify(target.ownName)})`;
}

/** The upstream's JSON-RPC error for a call, as the client should read it. */
export function errorUnderCalledName(target: CallTarget, error: McpctxError): McpctxError | JsonRpcError {
  if (!renamedUnlisted(target)) return error;
  const relayed = jsonRpcErrorFrom(error);
  return new JsonRpcError(relayed.code, `${calledAs(target)}; ${target.upstream} answered: ${relayed.message}`, relayed.data);
}

/** The upstream's error result for a call, with a first text block that names the called tool. */
export function resultUnderCalledName(target: CallTarget, result: JsonObject): JsonObject {
  if (!renamedUnlisted(target) || result.isError !== true) return result;
  const content = Array.isArray(result.content) ? result.content : [];
  return { ...result, content: [{ type: 'text', text: `${calledAs(target)}; ${target.upstream} answered:` }, ...content] };
}
