import { readFile, stat } from 'node:fs/promises';
import { McpctxError } from '../errors/index.js';

// Reading the files of results/: any of them may have been edited by anyone, so sizes are bounded
// and every failure names the file and how to rebuild it.

/** A results file larger than this is refused rather than read into memory. */
export const MAX_RESULTS_FILE_BYTES = 64 * 1024 * 1024;

/** The text of `file`; '' when it is missing and not `required`. */
export async function readResultsText(file: string, required: boolean): Promise<string> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' && !required) return undefined;
    throw new McpctxError('INVALID_RESULTS', `${file} is missing or unreadable (${error.code ?? error.message}); rebuild results/ with mcpctx sweep`, { file });
  });
  if (info === undefined) return '';
  if (!info.isFile()) throw new McpctxError('INVALID_RESULTS', `${file} is not a file`, { file });
  if (info.size > MAX_RESULTS_FILE_BYTES) throw new McpctxError('INVALID_RESULTS', `${file} is larger than ${MAX_RESULTS_FILE_BYTES} bytes; refused`, { file });
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new McpctxError('INVALID_RESULTS', `${file} cannot be read: ${(error as Error).message}`, { file });
  }
}

export function parseResultsJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new McpctxError('INVALID_RESULTS', `${file} is not valid JSON (${(error as Error).message}); rebuild results/ with mcpctx sweep`, { file });
  }
}
