// A scripted provider whose turns a function writes as the run asks: each request is answered by
// the scripted provider itself (same recorded bytes, so verify replays them), from a one-turn
// script built for that request. `policy` returns undefined to leave the request to `fallback`.
import { requestKey, scriptedProvider, type ChatRequest, type Provider, type ScriptedTurn } from '../../src/providers/index.js';

export function policyProvider(policy: (request: ChatRequest) => ScriptedTurn | undefined, fallback?: Provider): Provider {
  return {
    name: 'scripted',
    baseUrl: null,
    chat: async (request) => {
      const turn = policy(request);
      if (turn === undefined) {
        if (fallback === undefined) throw new Error(`the policy has no turn for ${request.messages.length} messages, and there is no fallback`);
        return fallback.chat(request);
      }
      return scriptedProvider({ version: 1, turns: { [requestKey(request)]: turn } }).chat(request);
    },
  };
}

/** The question (first user text) and the tool results so far, parsed as JSON where they are. */
export function conversationOf(request: ChatRequest): { question: string; results: unknown[]; offered: string[] } {
  const first = request.messages[0]?.content[0];
  const question = first?.type === 'text' ? first.text : '';
  const results = request.messages.flatMap((message) =>
    message.content.flatMap((block) => {
      if (block.type !== 'tool_result') return [];
      try {
        return [JSON.parse(block.content) as unknown];
      } catch {
        return [block.content];
      }
    }),
  );
  return { question, results, offered: (request.tools ?? []).map((tool) => tool.name) };
}

export function toolUse(id: string, name: string, input: Record<string, unknown>): ScriptedTurn {
  return { content: [{ type: 'tool_use', id, name, input }] };
}

export function answerTurn(answer: string, evidenceIds: string[], caveats: string[] = []): ScriptedTurn {
  return { content: [{ type: 'text', text: JSON.stringify({ answer, evidenceIds, caveats }) }] };
}
