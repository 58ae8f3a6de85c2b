/**
 * `verifyReceipt`'s check of what a run spent: the recorded price is the run's model's (and,
 * when it came from the bundled table, the table's figures for that model read that day), and
 * every figure of the cost block (each turn, failed call, question, condition, the records a
 * resume replaced, the run) is the recorded usage at the recorded price. The question records a
 * resume replaced are checked as the others are: their bytes, usage and requests.
 */
import { PRICE_TABLE, type PriceRecord } from '../../pricing/index.js';
import { buildRunCost, carriedTurns, sameQuestion } from './_cost.js';
import { shown, type Problems } from './_verify-compare.js';
import { verifyQuestion, type QuestionContext } from './_verify-question.js';
import { verifyRequests } from './_verify-requests.js';
import type { ExperimentReceipt } from '../_types.js';

export function verifyCost(run: ExperimentReceipt, problems: Problems): void {
  const cost = run.cost;
  if (cost === undefined) return;
  const price = cost.price;
  if (price !== null) verifyPrice(price, run, problems);
  problems.compare('cost', cost, buildRunCost(run, price, cost.maxUsd));
}

function verifyPrice(price: PriceRecord, run: ExperimentReceipt, problems: Problems): void {
  if (run.model !== undefined) {
    problems.compare('cost.price.provider', price.provider, run.model.provider, { recorded: 'recorded', recomputed: 'the run\'s model.provider is' });
    problems.compare('cost.price.model', price.model, run.model.model, { recorded: 'recorded', recomputed: 'the run\'s model.model is' });
  }
  if (price.from !== 'table') return;
  const listed = PRICE_TABLE.find((entry) => entry.provider === price.provider && entry.models.includes(price.model));
  // A table read on another day is another table (an older or newer mcpctx): its figures are the receipt's word.
  if (listed === undefined || listed.readOn !== price.readOn) return;
  for (const key of ['inputPerMTok', 'outputPerMTok', 'cacheReadPerMTok', 'cacheWritePerMTok', 'source'] as const) {
    problems.compare(`cost.price.${key}`, price[key], listed[key], { recorded: 'recorded', recomputed: `the bundled table (read ${listed.readOn}) says` });
  }
}

/**
 * Each record a resume replaced, checked like a question; it must be one of the run's questions.
 * A turn marked `replayed` must be the one a replaced record of its question holds at its place
 * (same request and response bytes): only such a turn may carry the stopped run's times.
 */
export function verifyReplaced(run: ExperimentReceipt, context: QuestionContext, problems: Problems): void {
  run.questions.forEach((question, index) => {
    const records = (run.resume?.replaced ?? []).filter((candidate) => sameQuestion(candidate, question));
    const carried = Math.max(0, ...records.map((record) => carriedTurns(record, [question])));
    question.turns.forEach((turn, turnIndex) => {
      if (turn.replayed === true && turnIndex >= carried) {
        problems.add(`questions[${index}].turns[${turnIndex}].replayed: recorded true, but no record in resume.replaced holds this turn's bytes at this place`);
      }
    });
  });
  const replaced = run.resume?.replaced;
  if (replaced === undefined) return;
  if (!Array.isArray(replaced)) {
    problems.add(`resume.replaced: recorded ${shown(replaced)}, expected an array`);
    return;
  }
  replaced.forEach((record, index) => {
    const path = `resume.replaced[${index}]`;
    problems.guard(path, () => {
      if (!run.questions.some((question) => sameQuestion(question, record))) {
        problems.add(`${path}: replaces ${shown(record.taskId)} (${shown(record.condition)}), which is not among the run's questions`);
      }
      verifyQuestion(record, path, context);
      const model = run.model;
      if (model !== undefined) verifyRequests(record, path, model.provider, { ...model, offered: run.config?.conditions?.[record.condition]?.tools }, problems);
    });
  });
}
