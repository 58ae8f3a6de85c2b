// verifyReceipt against a small receipt built here the way the runner builds one: real scripted
// exchanges, model-facing text and figures from the raw results, the judge's checks, the report.
// The consistent receipt must pass; each kind of tampered figure must fail, naming its path.
import { beforeAll, describe, expect, it } from 'vitest';
import { finalTextOf, judge } from '../../src/experiment/receipt/_judge.js';
import { modelFacingFigures, modelFacingText, probeCallFigures, rawContentFigures } from '../../src/experiment/receipt/_model-facing.js';
import { turnRecordOf } from '../../src/experiment/_question.js';
import { buildReport, questionTotals } from '../../src/experiment/receipt/_report.js';
import { buildRunCost } from '../../src/experiment/receipt/_cost.js';
import { verifyReceipt } from '../../src/experiment/receipt/_verify.js';
import { RECEIPT_FORMAT } from '../../src/experiment/_types.js';
import type { Condition, ExperimentReceipt, Frame, QuestionRecord, ServerRecord, Task, ToolCallRecord, ToolPaths } from '../../src/experiment/_types.js';
import { recordTurn, scriptedProvider, type ChatRequest, type ProviderTool, type ScriptedTurn } from '../../src/providers/index.js';
import { canonicalJson, sha256Hex } from '../../src/tokens/index.js';

const SYSTEM = 'Answer only from the records. Return JSON only: {"answer","evidenceIds","caveats"}.';
const MODEL = 'demo-model';
const paths: ToolPaths = {
  lookup: { search: 'find_records', matchArgument: 'field', fieldsArgument: 'fields', detail: 'exact_record', idArgument: 'id' },
  aggregate: { count: 'count_by_field' },
  later_page: { page: 'find_records', cursorArgument: 'cursor' },
};
const dropResultKeys: Record<Condition, string[]> = { baseline: [], optimized: ['cache'] };
const task: Task = {
  id: 'aggregate-1',
  kind: 'aggregate',
  question: 'How many records are open?',
  expectedAnswer: '2',
  evidenceIds: ['7', '9'],
  requiredCaveats: ['snapshot'],
  aggregateField: 'state',
  aggregateValue: 'open',
};
const answerText = JSON.stringify({ answer: '2', evidenceIds: ['7', '9'], caveats: ['Snapshot'] });
const setup: Record<Condition, { tool: ProviderTool; args: Record<string, unknown>; result: string }> = {
  baseline: {
    tool: { name: 'list_records', description: 'List every record.', inputSchema: { type: 'object', properties: {} } },
    args: {},
    result: '{"records":[{"id":"7","state":"open"},{"id":"8","state":"closed"},{"id":"9","state":"open"}]}',
  },
  optimized: {
    tool: { name: 'count_by_field', description: 'Count records.', inputSchema: { type: 'object', properties: { field: { type: 'string' }, value: { type: 'string' } } } },
    args: { field: 'state', value: 'open' },
    result: '{"count":2,"items":["7","9"],"truncated":false,"cache":"miss"}',
  },
};

function frame(direction: Frame['direction'], message: unknown): Frame {
  return { direction, text: JSON.stringify(message) };
}

function serverRecord(tool: ProviderTool, calls: Array<{ id: number; name: string; args: unknown; content: unknown }>): ServerRecord {
  const frames: Frame[] = [
    frame('sent', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcpctx', version: '0' } } }),
    frame('received', { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'records', version: '1' } } }),
    frame('sent', { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    frame('received', { jsonrpc: '2.0', id: 1, result: { tools: [tool] } }),
    frame('received', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'ready' } }),
  ];
  for (const call of calls) {
    frames.push(frame('sent', { jsonrpc: '2.0', id: call.id, method: 'tools/call', params: { name: call.name, arguments: call.args } }));
    frames.push(frame('received', { jsonrpc: '2.0', id: call.id, result: { content: call.content } }));
  }
  return {
    launch: { command: 'node', args: ['server.js'], envNames: ['MODE'] },
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'records', version: '1' },
    tools: [tool],
    toolsSha256: sha256Hex(canonicalJson([tool])),
    frames,
    framesSha256: sha256Hex(frames.map((f) => `${f.direction} ${f.text}\n`).join('')),
  };
}

/** One question as the runner runs it: a tool_use turn, the tool's result, an end_turn answer. */
async function runQuestion(condition: Condition): Promise<QuestionRecord> {
  const { tool, args, result } = setup[condition];
  const rawContent = [{ type: 'text', text: result }];
  const facing = modelFacingText(rawContent, false, dropResultKeys[condition]).text;
  const toolTurn: ScriptedTurn = { content: [{ type: 'tool_use', id: `toolu_${condition}`, name: tool.name, input: args }] };
  const answerTurn: ScriptedTurn = { content: [{ type: 'text', text: answerText }], usage: { cacheReadTokens: 40 } };
  const first: ChatRequest = { model: MODEL, system: SYSTEM, maxTokens: 512, tools: [tool], messages: [{ role: 'user', content: [{ type: 'text', text: task.question }] }] };
  const second: ChatRequest = {
    ...first,
    messages: [...first.messages, { role: 'assistant', content: toolTurn.content }, { role: 'user', content: [{ type: 'tool_result', toolUseId: `toolu_${condition}`, content: facing, isError: false }] }],
  };
  const provider = scriptedProvider(recordTurn(recordTurn({ version: 1, turns: {} }, first, toolTurn), second, answerTurn));
  const raw = rawContentFigures(rawContent);
  const figures = modelFacingFigures(facing);
  const call: ToolCallRecord = {
    toolUseId: `toolu_${condition}`,
    name: tool.name,
    arguments: args,
    rpcId: 2,
    isError: false,
    rawContent,
    rawContentBytes: raw.bytes,
    rawContentSha256: raw.sha256,
    modelFacingText: facing,
    modelFacingBytes: figures.bytes,
    modelFacingSha256: figures.sha256,
    modelFacingTokens: figures.tokens,
  };
  // Times in the order a run passes them: the question starts, the first call, its tool call, the second call, the question ends.
  const startedAt = new Date().toISOString();
  const firstTurn = turnRecordOf(await provider.chat(first), [call]);
  const callAt = new Date().toISOString();
  call.timing = { startedAt: callAt, endedAt: callAt, elapsedMs: 0 };
  const turns = [firstTurn, turnRecordOf(await provider.chat(second), [])];
  const endedAt = new Date().toISOString();
  const finalText = finalTextOf(turns[1]?.content ?? []);
  const { checks, failure } = judge(task, condition, paths, [call], finalText);
  expect(failure).toBeUndefined();
  return {
    taskId: task.id,
    kind: task.kind,
    condition,
    question: task.question,
    status: 'passed',
    server: serverRecord(tool, [{ id: 2, name: tool.name, args, content: rawContent }]),
    turns,
    timing: { startedAt, endedAt, elapsedMs: Date.parse(endedAt) - Date.parse(startedAt) },
    finalText,
    checks,
    totals: questionTotals(turns),
  };
}

async function buildReceipt(): Promise<ExperimentReceipt> {
  const questions = [await runQuestion('baseline'), await runQuestion('optimized')];
  const probeContent = (cache: string) => [{ type: 'text', text: `{"count":2,"items":["7","9"],"truncated":false,"cache":"${cache}"}` }];
  const probeCall = (cache: string) => ({ rawContent: probeContent(cache), ...probeCallFigures(probeContent(cache), dropResultKeys.optimized), cache });
  return {
    format: RECEIPT_FORMAT,
    warning: 'Private run.',
    status: 'completed',
    startedAt: '2026-12-02T12:00:00.000Z',
    updatedAt: '2026-12-02T12:01:00.000Z',
    stages: [],
    errors: [],
    config: {
      path: '/x/experiment.json',
      sha256: sha256Hex('config'),
      bytes: 6,
      pageSize: 5,
      maxTurns: 8,
      conditions: { baseline: { tools: null, dropResultKeys: [] }, optimized: { tools: null, dropResultKeys: ['cache'] } },
      paths,
    },
    inputs: {
      snapshot: { path: '/x/records.jsonl', sha256: sha256Hex('records'), bytes: 7, records: 3 },
      fields: { path: '/x/fields.json', sha256: sha256Hex('fields'), bytes: 6, allowed: ['id', 'state'] },
      tasks: tasksFile([task]),
    },
    model: { provider: 'scripted', model: MODEL, baseUrl: null, maxTokens: 512, temperature: null, system: SYSTEM, systemSha256: sha256Hex(SYSTEM) },
    tasks: [task],
    validation: [{ taskId: task.id, kind: 'aggregate', ok: true, problems: [], independentCount: 2 }],
    questions,
    probe: {
      status: 'passed',
      condition: 'optimized',
      tool: 'count_by_field',
      arguments: setup.optimized.args,
      first: probeCall('miss'),
      repeat: probeCall('hit'),
      server: serverRecord(setup.optimized.tool, [
        { id: 2, name: 'count_by_field', args: setup.optimized.args, content: probeContent('miss') },
        { id: 3, name: 'count_by_field', args: setup.optimized.args, content: probeContent('hit') },
      ]),
      note: 'Direct calls on a fresh server, excluded from totals.',
    },
    report: buildReport([task], questions),
    cost: buildRunCost({ questions }, null, null),
  };
}

/** The receipt's record of a tasks file holding `tasks`, text included. */
function tasksFile(tasks: Task[]): NonNullable<ExperimentReceipt['inputs']>['tasks'] {
  const text = `${JSON.stringify(tasks, null, 2)}\n`;
  return { path: '/x/tasks.json', sha256: sha256Hex(text), bytes: Buffer.byteLength(text, 'utf8'), count: tasks.length, text };
}

let receipt: ExperimentReceipt;
beforeAll(async () => {
  receipt = await buildReceipt();
});

/** A copy as read from receipt.json, changed by `edit`. */
function tampered(edit: (copy: ExperimentReceipt) => void): ExperimentReceipt {
  const copy = JSON.parse(JSON.stringify(receipt)) as ExperimentReceipt;
  edit(copy);
  return copy;
}

function question(copy: ExperimentReceipt, index: number): QuestionRecord {
  const found = copy.questions[index];
  if (found === undefined) throw new Error(`no question ${index}`);
  return found;
}

function problemsOf(copy: unknown): string[] {
  const result = verifyReceipt(copy);
  expect(result.ok).toBe(false);
  return result.problems;
}

describe('verifyReceipt: a consistent receipt', () => {
  it('passes, as built and as read back from JSON, and says what it checked', () => {
    expect(receipt.report?.compared).toBe(1);
    for (const candidate of [receipt, JSON.parse(JSON.stringify(receipt)) as unknown]) {
      const result = verifyReceipt(candidate);
      expect(result.problems).toEqual([]);
      expect(result.ok).toBe(true);
      expect(result.checked).toEqual({ questions: 2, turns: 4, toolCalls: 2, frames: 7 + 7 + 9 });
    }
  });
});

describe('verifyReceipt: each tampered figure fails, naming its path', () => {
  it('a usage number', () => {
    const problems = problemsOf(tampered((copy) => (question(copy, 0).turns[0]!.usage!.inputTokens += 1)));
    expect(problems.some((problem) => problem.startsWith('questions[0].turns[0].usage.inputTokens: recorded'))).toBe(true);
    expect(problems.some((problem) => problem.startsWith('questions[0].totals.inputTokens'))).toBe(true);
  });

  it('a modelFacingTokens', () => {
    const problems = problemsOf(tampered((copy) => (question(copy, 1).turns[0]!.tools[0]!.modelFacingTokens -= 1)));
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[1\]\.turns\[0\]\.tools\[0\]\.modelFacingTokens: recorded \d+, recomputed \d+$/));
  });

  it("a frame's text", () => {
    const problems = problemsOf(
      tampered((copy) => {
        const frames = question(copy, 1).server!.frames;
        const last = frames[frames.length - 1]!;
        last.text = last.text.replace('\\"count\\":2', '\\"count\\":3');
      }),
    );
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[1\]\.server\.framesSha256: recorded/));
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[1\]\.turns\[0\]\.tools\[0\]\.rawContent: recorded .* but the frame answering request 2 carries/));
  });

  it('a report total', () => {
    const problems = problemsOf(tampered((copy) => (copy.report!.totals.contextTokens.optimized! -= 100)));
    expect(problems).toContainEqual(expect.stringMatching(/^report\.totals\.contextTokens\.optimized: recorded \d+, recomputed \d+$/));
  });

  it('an answer text in content', () => {
    const problems = problemsOf(
      tampered((copy) => {
        const block = question(copy, 0).turns[1]!.content[0];
        if (block?.type === 'text') block.text = block.text.replace('"2"', '"3"');
      }),
    );
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[0\]\.turns\[1\]\.content\[0\]\.text: recorded/));
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[0\]\.finalText: recorded/));
  });

  it('a rawContent byte', () => {
    const problems = problemsOf(
      tampered((copy) => {
        const content = question(copy, 1).turns[0]!.tools[0]!.rawContent as Array<{ text: string }>;
        content[0]!.text = content[0]!.text.replace('"9"', '"8"');
      }),
    );
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[1\]\.turns\[0\]\.tools\[0\]\.rawContentSha256: recorded/));
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[1\]\.turns\[0\]\.tools\[0\]\.rawContent: recorded/));
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[1\]\.turns\[0\]\.tools\[0\]\.modelFacingText: recorded/));
  });

  it('the recorded response bytes, the system prompt and a probe figure', () => {
    const cut = problemsOf(tampered((copy) => (question(copy, 0).turns[0]!.raw.response = question(copy, 0).turns[0]!.raw.response.slice(0, 30))));
    expect(cut).toContainEqual(expect.stringMatching(/^questions\[0\]\.turns\[0\]\.raw: the recorded response does not replay \(PROVIDER_ERROR\)/));
    expect(cut).toContainEqual(expect.stringMatching(/^questions\[0\]\.turns\[0\]\.rawResponseSha256: recorded/));
    expect(problemsOf(tampered((copy) => (copy.model!.system += ' ')))).toContainEqual(expect.stringMatching(/^model\.systemSha256: recorded/));
    expect(problemsOf(tampered((copy) => (copy.probe!.repeat!.modelFacingTokens = 0)))).toContainEqual(expect.stringMatching(/^probe\.repeat\.modelFacingTokens: recorded 0/));
  });
});

describe('verifyReceipt: records that disagree with each other', () => {
  it('a tool call record without its tool_use block, and one with another input', () => {
    expect(problemsOf(tampered((copy) => question(copy, 1).turns[0]!.tools.pop()))).toContainEqual(
      expect.stringMatching(/^questions\[1\]\.turns\[0\]\.tools: recorded 0 tool calls for the 1 tool_use blocks/),
    );
    expect(problemsOf(tampered((copy) => (question(copy, 1).turns[0]!.tools[0]!.arguments = { field: 'state', value: 'closed' })))).toContainEqual(
      expect.stringMatching(/^questions\[1\]\.turns\[0\]\.tools\[0\]\.arguments\.value: recorded "closed", recomputed "open"/),
    );
  });

  it('a verdict the judge does not give, and a failure it does not give', () => {
    const wrongKey = problemsOf(tampered((copy) => (copy.tasks![0]!.expectedAnswer = '3')));
    expect(wrongKey).toContainEqual(expect.stringMatching(/^questions\[0\]\.status: recorded passed, recomputed failed \(ANSWER_MISMATCH/));
    expect(wrongKey).toContainEqual(expect.stringMatching(/^validation\[0\]\.independentCount: recorded 2, but the task's expectedAnswer is "3"/));
    const invented = problemsOf(
      tampered((copy) => {
        const record = question(copy, 1);
        record.status = 'failed';
        record.failure = { code: 'ANSWER_MISMATCH', message: 'The answer "2" does not match the expected "3".' };
      }),
    );
    expect(invented).toContainEqual(expect.stringMatching(/^questions\[1\]\.status: recorded failed \(ANSWER_MISMATCH\), recomputed passed/));
    expect(invented).toContainEqual(expect.stringMatching(/^report\.rows\[0\]\.optimized\.status: recorded "passed", recomputed "failed"/));
  });

  it('an outcome its status and failure do not give: a wrong answer relabelled a harness failure, to hide a lost answer', () => {
    const hidden = problemsOf(
      tampered((copy) => {
        const record = question(copy, 1);
        record.status = 'failed';
        record.failure = { code: 'TOOL_FAILURE', message: 'the tool failed' };
        record.outcome = 'harness-failure';
        copy.report = buildReport(copy.tasks!, copy.questions);
        copy.cost = buildRunCost(copy, null, null);
      }),
    );
    expect(hidden).toEqual(['questions[1].outcome: recorded "harness-failure", recomputed "wrong"']);
    const relabelled = problemsOf(tampered((copy) => (question(copy, 0).outcome = 'provider-failure')));
    expect(relabelled).toContainEqual('questions[0].outcome: recorded "provider-failure", recomputed "right"');
    expect(relabelled).toContainEqual(expect.stringMatching(/^report\.rows\[0\]\.baseline\.outcome: recorded "right", recomputed "provider-failure"/));
  });

  it('a runtime failure stands as recorded, but a passed question needs its end_turn answer', () => {
    const runtime = tampered((copy) => {
      const record = question(copy, 1);
      record.status = 'failed';
      record.failure = { code: 'TOOL_FAILURE', message: 'the tool failed' };
      copy.report = buildReport(copy.tasks!, copy.questions);
      copy.cost = buildRunCost(copy, null, null);
    });
    expect(verifyReceipt(runtime).problems).toEqual([]);
    expect(problemsOf(tampered((copy) => delete question(copy, 0).finalText))).toContainEqual(
      expect.stringMatching(/^questions\[0\]\.status: recorded passed, but the question has no end_turn answer/),
    );
  });

  it('a run still marked running (killed before its end) is not verified, though what it holds recomputes', () => {
    for (const status of ['running', 'starting'] as const) {
      const killed = tampered((copy) => {
        copy.status = status;
        delete copy.report;
      });
      const verification = verifyReceipt(killed);
      expect(verification.ok).toBe(false);
      expect(verification.problems).toEqual([expect.stringMatching(new RegExp(`^status: recorded "${status}": the run stopped before its end`))]);
    }
  });

  it('validation: an ok later_page task has its evidence positions in matchingIds, one past the first page', () => {
    const { aggregateField: _field, aggregateValue: _value, ...common } = task;
    const later: Task = { ...common, id: 'later_page-1', kind: 'later_page', pageField: 'state', pageValue: 'open', evidenceIds: ['9'] };
    const withPage = (matchingIds: string[], evidencePositions: number[]) =>
      tampered((copy) => {
        copy.tasks!.push(later);
        copy.inputs!.tasks = tasksFile(copy.tasks!);
        for (const condition of ['baseline', 'optimized'] as const) {
          copy.questions.push({ taskId: later.id, kind: later.kind, condition, question: later.question, status: 'skipped', failure: { code: 'PRIOR_FAILURE', message: 'not asked' }, turns: [], totals: questionTotals([]) });
        }
        copy.validation!.push({ taskId: later.id, kind: 'later_page', ok: true, problems: [], matchingIds, evidencePositions });
        copy.report = buildReport(copy.tasks!, copy.questions);
        copy.cost = buildRunCost(copy, null, null);
      });
    const ids = ['1', '2', '3', '4', '5', '6', '7', '9'];
    expect(verifyReceipt(withPage(ids, [7])).problems).toEqual([]);
    expect(problemsOf(withPage(ids, [6]))).toContainEqual(expect.stringMatching(/^validation\[1\]\.evidencePositions\[0\]: recorded 6, recomputed 7/));
    expect(problemsOf(withPage(['7', '9'], [1]))).toContainEqual(expect.stringMatching(/^validation\[1\]\.evidencePositions: recorded \[1\], but an ok later_page task needs evidence at position 5/));
  });

  it('a completed run without a report', () => {
    expect(problemsOf(tampered((copy) => delete copy.report))).toEqual(['report: absent, but the run is completed']);
  });
});

describe('verifyReceipt: input that is not a receipt', () => {
  it('is one problem, never an exception', () => {
    for (const input of [null, 'receipt', [], 42]) {
      const result = verifyReceipt(input);
      expect(result.ok).toBe(false);
      expect(result.problems).toHaveLength(1);
    }
    expect(verifyReceipt({ format: 'other/v9' }).problems).toEqual(['format: recorded "other/v9", expected "mcpctx-experiment-receipt/v2"']);
  });

  it('reports broken parts by path instead of throwing', () => {
    const broken = tampered((copy) => {
      (copy.questions as unknown[]).push({ taskId: 'x', turns: [{}] }, 7);
      (question(copy, 0).turns[0] as unknown as Record<string, unknown>).raw = null;
    });
    const problems = problemsOf(broken);
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[0\]\.turns\[0\]: cannot be checked/));
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[2\]/));
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[3\]: cannot be checked/));
  });
});

// Each forgery keeps the receipt agreeing with itself (hashes, totals, checks, report recomputed),
// as a careful editor would: only what was sent, the tasks file and the run's order give it away.
describe('verifyReceipt: a receipt that agrees with itself but is not the run', () => {
  /** The copy made consistent again after `edit`: totals, checks and the report recomputed. */
  function forged(edit: (copy: ExperimentReceipt) => void): ExperimentReceipt {
    return tampered((copy) => {
      edit(copy);
      for (const record of copy.questions) {
        record.totals = questionTotals(record.turns);
        const last = record.turns.at(-1);
        if (last !== undefined) record.finalText = finalTextOf(last.content);
        const found = copy.tasks!.find((candidate) => candidate.id === record.taskId);
        if (found !== undefined && record.status === 'passed') record.checks = judge(found, record.condition, paths, record.turns.flatMap((turn) => turn.tools), record.finalText).checks;
      }
      copy.report = buildReport(copy.tasks!, copy.questions);
      copy.cost = buildRunCost(copy, null, null);
    });
  }

  it("dropping each baseline question's first turn breaks the chain of requests", () => {
    const problems = problemsOf(forged((copy) => copy.questions.filter((record) => record.condition === 'baseline').forEach((record) => record.turns.shift())));
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[0\]\.turns\[0\]\.raw\.request\.messages: sent 3 items, the receipt makes 1 \(sent \[/));
  });

  it('removing a question', () => {
    const problems = problemsOf(forged((copy) => copy.questions.splice(1, 1)));
    expect(problems).toEqual(['questions: no record of task "aggregate-1" in condition optimized (the tasks make 2 questions, recorded 1)']);
  });

  it('removing a whole task with its questions, its validation and its count', () => {
    const problems = problemsOf(
      forged((copy) => {
        copy.tasks = [];
        copy.questions = [];
        copy.validation = [];
        copy.inputs!.tasks.count = 0;
      }),
    );
    expect(problems).toContainEqual(expect.stringMatching(/^tasks: recorded 0 items, the tasks file makes 1 \(recorded \[\], the tasks file makes \[\{"id":"aggregate-1"/));
  });

  it('swapping two question records', () => {
    const problems = problemsOf(forged((copy) => copy.questions.reverse()));
    // The recorded times may say so too (when the two questions did not run within one millisecond): that problem is the timing check's.
    expect(problems.filter((problem) => !problem.includes('.timing.'))).toEqual([
      'questions[0]: recorded task "aggregate-1" "optimized", but the runner asks task "aggregate-1" baseline there (tasks in file order, baseline then optimized)',
      'questions[1]: recorded task "aggregate-1" "baseline", but the runner asks task "aggregate-1" optimized there (tasks in file order, baseline then optimized)',
    ]);
  });

  it('rewriting the system prompt and its hash', () => {
    const problems = problemsOf(
      forged((copy) => {
        copy.model!.system = 'Answer freely.';
        copy.model!.systemSha256 = sha256Hex('Answer freely.');
      }),
    );
    expect(problems).toContainEqual(`questions[0].turns[0].raw.request.system: sent ${JSON.stringify(SYSTEM)}, the receipt makes "Answer freely."`);
  });

  it('rewriting the tool list and its hash', () => {
    const problems = problemsOf(
      forged((copy) => {
        const server = question(copy, 1).server!;
        server.tools[0]!.description = 'Count records, fast.';
        server.toolsSha256 = sha256Hex(canonicalJson(server.tools));
      }),
    );
    expect(problems).toContainEqual('questions[1].turns[0].raw.request.tools[0].description: sent "Count records.", the receipt makes "Count records, fast."');
  });

  it('rewriting the question, in the tasks, the tasks file and its hash too', () => {
    const asked = 'How many records are open today?';
    const problems = problemsOf(
      forged((copy) => {
        copy.tasks![0]!.question = asked;
        copy.inputs!.tasks = tasksFile(copy.tasks!);
        for (const record of copy.questions) record.question = asked;
      }),
    );
    expect(problems).toContainEqual(`questions[0].turns[0].raw.request.messages[0].content[0].text: sent ${JSON.stringify(task.question)}, the receipt makes ${JSON.stringify(asked)}`);
  });

  it("offering other tools than the condition's config names", () => {
    const problems = problemsOf(forged((copy) => (copy.config!.conditions.optimized.tools = ['count_by_field', 'exact_record'])));
    expect(problems).toEqual(['questions[1].server.tools: offers 1 items, config.conditions.optimized.tools names 2 (offers ["count_by_field"], config.conditions.optimized.tools names ["count_by_field","exact_record"])']);
  });

  it('rewriting max_tokens', () => {
    const problems = problemsOf(forged((copy) => (copy.model!.maxTokens = 4096)));
    expect(problems).toContainEqual('questions[0].turns[0].raw.request.maxTokens: sent 512, the receipt makes 4096');
  });

  it('dropping the timings of a question that ran, or the spend, to hide an order or a cost', () => {
    expect(problemsOf(tampered((copy) => delete copy.questions[1]!.timing))).toContain('questions[1].timing: absent, but the question ran');
    expect(problemsOf(tampered((copy) => delete copy.questions[0]!.turns[1]!.timing))).toContain('questions[0].turns[1].timing: absent, but the question recorded its timing');
    expect(problemsOf(tampered((copy) => delete copy.cost))).toEqual(['cost: absent, but the run reached its report: every run that asked questions records its spend (unknown when unpriced)']);
  });

  it('a v1 receipt (before timings, spend and the tasks text): one problem that says to run again', () => {
    const result = verifyReceipt(tampered((copy) => ((copy as { format: string }).format = 'mcpctx-experiment-receipt/v1')));
    expect(result.problems).toEqual([
      'format: recorded "mcpctx-experiment-receipt/v1", expected "mcpctx-experiment-receipt/v2": written by an earlier mcpctx, without the tasks text, timings and spend this version re-derives; run the experiment again',
    ]);
  });

  it('a receipt written before the tasks file text was recorded: one clear problem, not a crash', () => {
    const result = verifyReceipt(tampered((copy) => delete copy.inputs!.tasks.text));
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual(["inputs.tasks.text: absent (recorded absent), so the recorded tasks cannot be re-derived from the tasks file's bytes"]);
  });
});
