import type { FunctionTool } from '@openai/agents';
import { agents } from './_peer.js';

/** The SDK's strict JSON-schema shape of tool parameters (its type is not exported). */
type StrictParameters = { type: 'object'; properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties: false };
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import type { HostShaper } from '../index.js';

/**
 * The read_result tool for an Agent: the gateway's definition (name, description, parameters)
 * over the shaper's store. Its answer is the page's text; a refusal (a bad handle or cursor, an
 * expired result) and a malformed call are answered as text too, so the model can correct itself.
 * Strict: the SDK makes the optional parameters nullable for OpenAI's strict mode and strips the
 * nulls before the call reaches the shaper.
 */
export function readResultTool(shaper: HostShaper): FunctionTool<unknown, StrictParameters, string> {
  if (typeof shaper?.readResult !== 'function') throw new McpctxError('INVALID_ARGUMENT', 'readResultTool needs a HostShaper (new HostShaper({ rules })).');
  const definition = shaper.readResultTool;
  const schema = definition.inputSchema;
  if (typeof definition.name !== 'string' || typeof definition.description !== 'string' || !isPlainObject(schema) || !isPlainObject(schema.properties) || !Array.isArray(schema.required)) {
    throw new McpctxError('INVALID_ARGUMENT', 'readResultTool: the shaper\'s read_result definition has no name, description or object input schema.');
  }
  const parameters: StrictParameters = {
    type: 'object',
    properties: schema.properties as Record<string, Record<string, unknown>>,
    required: schema.required as string[],
    additionalProperties: false,
  };
  return agents.tool({
    name: definition.name,
    description: definition.description,
    parameters,
    strict: true,
    execute: (input: unknown): string => {
      try {
        return shaper.readResult(input).text;
      } catch (error) {
        if (isMcpctxError(error) && error.code === 'INVALID_ARGUMENT') return `Error: ${error.message}`;
        throw error;
      }
    },
  });
}
