import { jsonText, sha256Hex } from '../../tokens/index.js';
import type { HostShaped } from '../index.js';

/** How many shaped answers are remembered; the oldest is forgotten first. */
const REMEMBERED = 512;

/**
 * The shaped answer of each tool result, made once. The AI SDK runs a tool's toModelOutput every
 * time it turns a result into a prompt: once per step in generateText and streamText, and again
 * on every request when convertToModelMessages rebuilds a chat's history. Shaping again would
 * store the result again under a new handle and change the bytes the model already read (a
 * provider's prompt cache keyed on them would miss), and report the call twice. Keyed by the
 * tool, the call id and a digest of the result, so a reused call id with another result is shaped
 * afresh.
 */
export class ShapedOnce {
  readonly #answers = new Map<string, Promise<HostShaped>>();

  /** The answer for this result, from `shape` the first time. A failed shaping is not remembered. */
  get(tool: string, toolCallId: string, output: unknown, shape: () => Promise<HostShaped>): Promise<HostShaped> {
    const text = typeof output === 'string' ? output : (jsonText(output, 'the tool result') ?? 'undefined');
    const key = `${tool}\u0000${toolCallId}\u0000${sha256Hex(text)}`;
    const known = this.#answers.get(key);
    if (known !== undefined) return known;
    const answer = shape();
    this.#answers.set(key, answer);
    answer.catch(() => this.#answers.delete(key));
    if (this.#answers.size > REMEMBERED) {
      const oldest = this.#answers.keys().next().value;
      if (oldest !== undefined) this.#answers.delete(oldest);
    }
    return answer;
  }
}
