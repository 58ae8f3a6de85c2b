import { McpctxError } from '../errors/index.js';
import { exactPieceSteps, needsExactPath, pieceEnd } from './_exact-bpe.js';
import { countPiece, rememberedCount } from './_piece-count.js';

/**
 * Counting that gives the event loop back. Counting is synchronous CPU work: 1 MB of prose takes
 * tens of milliseconds, one long pre-tokenizer piece (a 4 MB word, 1 MiB of spaces) seconds, and
 * a gateway that counts a result on its event loop stalls every other session meanwhile. Here the
 * same count runs as steps (`countSteps`), and the driver yields to the event loop whenever it has
 * held it for TURN_MS. The number is the one `countTokens` gives: the same pieces, each counted
 * the same way (gpt-tokenizer, or the exact heap merge for the pieces that need it).
 */

/** How long an async count holds the event loop before it lets others run. */
export const TURN_MS = 10;
/** Characters of short pieces counted between two pauses (a few milliseconds of work). */
const PAUSE_EVERY_CHARS = 16_384;

export interface AsyncCountOptions {
  /** Ends the count early: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * The o200k_base counts of `texts` (the numbers `countTokens` gives), counted in turns of at most
 * about TURN_MS of work, one turn after another through `setImmediate`, so that other work (other
 * sessions' requests) runs between them. Many short texts share the turns: a result of a thousand
 * parts pauses as a single long text does.
 */
export async function countTokensEach(texts: readonly string[], options: AsyncCountOptions = {}): Promise<number[]> {
  for (const text of texts) {
    if (typeof text !== 'string') throw new McpctxError('INVALID_ARGUMENT', `countTokensEach: expected strings, got ${text === null ? 'null' : typeof text}`);
  }
  const { signal } = options;
  signal?.throwIfAborted();
  let turnStarted = performance.now();
  const counts: number[] = [];
  for (const text of texts) {
    const steps = countSteps(text);
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) {
        counts.push(step.value);
        break;
      }
      if (performance.now() - turnStarted >= TURN_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
        turnStarted = performance.now();
      }
    }
  }
  return counts;
}

/** The o200k_base count of `text` (the number `countTokens` gives), without holding the event loop for more than about TURN_MS at a time. */
export async function countTokensAsync(text: string, options: AsyncCountOptions = {}): Promise<number> {
  const [count = 0] = await countTokensEach([text], options);
  return count;
}

/**
 * `countByPieces` as steps: the same pieces and counts, pausing (yielding) every
 * PAUSE_EVERY_CHARS characters of short pieces, and inside a long piece as its merge does.
 */
function* countSteps(text: string): Generator<undefined, number> {
  let count = 0;
  let sincePause = 0;
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    const piece = text.slice(start, end);
    start = end;
    if (piece.length > PAUSE_EVERY_CHARS / 64 && needsExactPath(piece)) count += yield* exactPieceSteps(piece);
    else count += rememberedCount(piece, countPiece);
    sincePause += piece.length;
    if (sincePause >= PAUSE_EVERY_CHARS) {
      sincePause = 0;
      yield undefined;
    }
  }
  return count;
}
