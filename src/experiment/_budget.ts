/**
 * `--max-usd`: before each model call, what the run has committed so far plus the worst case of
 * that call (every o200k token of its request body at the input price, max_tokens at the output
 * price) must stay within the cap; otherwise the run stops BEFORE the call (BUDGET_STOP). A call
 * whose usage came back unknown stays committed at its worst case: a budget never guesses low.
 */
import { McpctxError } from '../errors/index.js';
import { sentRequestBody, type ChatRequest, type ProviderName } from '../providers/index.js';
import { formatUsd, usageUsd, worstCaseUsd, type PriceRecord } from '../pricing/index.js';
import { countTokens } from '../tokens/index.js';
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
    const requestTokens = countTokens(JSON.stringify(sentRequestBody(this.provider, request)));
    const worst = worstCaseUsd(requestTokens, request.maxTokens, this.price);
    if (spent + worst <= this.maxUsd) return;
    throw new McpctxError(
      'BUDGET_STOP',
      `stopped before a model call: ${formatUsd(spent)} committed so far, and this call could cost up to ${formatUsd(worst)} (${requestTokens} request tokens, max_tokens ${request.maxTokens}), past --max-usd ${formatUsd(this.maxUsd)}`,
      { spentUsd: spent, worstCaseUsd: worst, maxUsd: this.maxUsd, requestTokens, maxTokens: request.maxTokens },
    );
  }

  /** A question's calls: each turn at its usage, or its worst case when the usage is unknown; the failed call as announced. */
  private committed(record: QuestionRecord, skipTurns: number): number {
    let total = 0;
    for (const turn of record.turns.slice(skipTurns)) {
      total += usageUsd(turn.usage, this.price) ?? worstCaseUsd(countTokens(turn.raw.request), this.maxTokens, this.price);
    }
    if (record.failedCall !== undefined) {
      total += failedCallUsd(record.failedCall, this.price) ?? worstCaseUsd(countTokens(record.failedCall.raw.request), this.maxTokens, this.price);
    }
    return total;
  }
}
