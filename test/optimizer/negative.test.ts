import { describe, expect, it } from 'vitest';
import { setAsideWords } from '../../src/optimizer/_negative.js';
import { ContextOptimizer } from '../../src/optimizer/index.js';

describe('set-aside words: what the user says to ignore', () => {
  it('reads the object of "ignore", "disregard", "don\'t worry about" and the subject of "is unrelated"', () => {
    expect(setAsideWords('Ignore the lint output, those warnings are old and unrelated to the checkout bug.')).toEqual(['lint']);
    expect(setAsideWords("Don't worry about the checkov findings, security signs those off.")).toEqual(['checkov']);
    expect(setAsideWords('Please disregard the e2e suite for now.')).toEqual(['e2e', 'suite']);
    expect(setAsideWords('I think the flaky storybook job is a red herring.')).toEqual(['flaky', 'storybook']);
    // The object ends at a preposition: the crate the warnings are in is not set aside.
    expect(setAsideWords("Ignore the chrono deprecation warnings in quarry-core, that's QRY-231.")).toEqual(['chrono', 'deprecation']);
    expect(setAsideWords("The clippy job's needless_borrow lints are pre-existing, ignore them.")).toEqual(['clippy', 'needless_borrow', 'lints']);
  });

  it('takes nothing from sentences that set nothing aside', () => {
    expect(setAsideWords('The checkout total is wrong when a coupon is applied; the lint job is green.')).toEqual([]);
    expect(setAsideWords('This is unrelated to the cart.')).toEqual([]);
  });

  it('the task wins: a run the task names is not set aside by an earlier message', () => {
    const lint = { id: 'lint', command: 'npm run lint', exitCode: 1, timestamp: '2026-10-12T09:01:00.000Z', output: "src/a.ts\n  3:9  error  'x' is defined but never used  no-unused-vars" };
    const message = { id: 'ignore', role: 'user' as const, timestamp: '2026-10-12T09:02:00.000Z', text: 'Ignore the lint output for now.' };
    const optimizer = new ContextOptimizer();
    const result = optimizer.buildContext({ task: 'fix the lint errors in src/a.ts', messages: [message], toolOutputs: [lint], tokenBudget: 2_000 });
    expect(result.report.setAside).toEqual([]);
    expect(result.sources.some((source) => source.recordId === 'lint')).toBe(true);
  });
});
