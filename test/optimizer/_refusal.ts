// What a call to the optimizer refuses with: its McpctxError's code, message and the path it names.
import { isMcpctxError } from '../../src/errors/index.js';

export function refusal(run: () => unknown): { code: string; message: string; path: unknown } {
  try {
    run();
  } catch (error) {
    if (isMcpctxError(error)) return { code: error.code, message: error.message, path: error.data.path };
    throw error;
  }
  throw new Error('expected a refusal');
}
