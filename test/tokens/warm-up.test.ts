// warmUpTokenizer: loads the encoder in two steps with the event loop free between them, and
// counts are the same whether it ran first or not.
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { countTokens, warmUpTokenizer } from '../../src/tokens/index.js';

describe('warmUpTokenizer', () => {
  it('lets I/O callbacks run between its two steps, then counts as before', async () => {
    let ranBetween = false;
    setImmediate(() => (ranBetween = true));
    const warming = warmUpTokenizer();
    // The first step ran synchronously; the second waits for the event loop's next check phase.
    expect(ranBetween).toBe(false);
    await warming;
    expect(ranBetween).toBe(true);
    const text = 'hello world <|endoftext|> {"id": 42}';
    expect(countTokens(text)).toBe(getEncoding('o200k_base').encode(text, [], []).length);
    await expect(warmUpTokenizer()).resolves.toBeUndefined();
  });
});
