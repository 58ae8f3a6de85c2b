/**
 * `--max-usd`: before each model call, what the run has committed so far plus the worst case of
 * that call (`worstCaseUsd`: its request body's bytes as tokens, max_tokens at the output price)
 * must stay within the cap; otherwise the run stops BEFORE the call (BUDGET_STOP). A call
 * whose usage came back unknown stays committed at its worst case: a budget never guesses low.
 */
import { sentRequestBody, type ChatRequest, type ProviderName } from '../providers/index.js';
import { checkBudget, usageUsd, worstCaseUsd, type PriceRecord } from '../pricing/index.js';
import { failedCallUsd } from './receipt/_cost.js';
import type { QuestionRecord } from './_types.js';

export class Budget {
  /** Committed by the questions already ended (and, on resume, the stopped run's records). */
  private settled = 0;

  constructor(
    readonly maxUsd: number,
    private readonly price: PriceRecord,
    private readonly provider: ProviderName,
    private readonly maxTokens: number,
  ) {}

  /** Adds what an ended question's calls committed. */
  settle(record: QuestionRecord, skipTurns = 0): void {
    this.settled += this.committed(record, skipTurns);
  }

  /** Throws BUDGET_STOP when `request`, sent now by `record`'s question, could pass the cap; its first `skipTurns` turns were settled already (carried over on resume). */
  check(record: QuestionRecord, request: ChatRequest, skipTurns: number): void {
    const spent = this.settled + this.committed(record, skipTurns);
    checkBudget(JSON.stringify(sentRequestBody(this.provider, request)), request.maxTokens, this.price, spent, this.maxUsd);
  }

  /** A question's calls: each turn at its usage, or its worst case when the usage is unknown; the failed call as announced. */
  private committed(record: QuestionRecord, skipTurns: number): number {
    let total = 0;
    for (const turn of record.turns.slice(skipTurns)) {
      total += usageUsd(turn.usage, this.price) ?? worstCaseUsd(turn.raw.request, this.maxTokens, this.price).usd;
    }
    if (record.failedCall !== undefined) {
      total += failedCallUsd(record.failedCall, this.price) ?? worstCaseUsd(record.failedCall.raw.request, this.maxTokens, this.price).usd;
    }
    return total;
  }
}
