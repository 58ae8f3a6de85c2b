// Records turns.json, the scripted model turns of the bundled experiment. The "model" here is a
// policy written out below: it takes the tool path a careful model would take (list everything in
// the baseline; search brief, then fetch the detail, count, and follow cursors in the optimized
// mode) and builds its answer from what the tools returned, not from the answer key. The turns
// prove the experiment's machinery end to end offline; they say nothing about a real model.
//
// Regenerate after changing the records server, the data, the tasks or the config:
//   npm run build && node examples/experiment/record-turns.mjs
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runExperiment } from 'mcpctx/experiment';
import { recordTurn, scriptedProvider } from 'mcpctx/providers';

/** @typedef {import('mcpctx/providers').ChatMessage} ChatMessage */
/** @typedef {import('mcpctx/providers').ScriptedTurn} ScriptedTurn */
/** @typedef {import('mcpctx/providers').ScriptedTurns} ScriptedTurns */
/** @typedef {import('mcpctx/providers').Provider} Provider */
/** @typedef {import('mcpctx/experiment').Task} Task */
/** @typedef {{ id: string, title: string, [field: string]: string }} Row */

const here = fileURLToPath(new URL('.', import.meta.url));
const configFile = join(here, 'config.yaml');
const turnsFile = join(here, 'turns.json');
/** @type {Task[]} */
const tasks = JSON.parse(readFileSync(join(here, 'tasks.json'), 'utf8'));

const CAVEAT = 'Counted over the frozen snapshot of the records, not the live repository.';

/**
 * The JSON of the last tool_result in the conversation.
 * @param {ChatMessage[]} messages
 * @returns {any}
 */
function lastResult(messages) {
  const last = messages[messages.length - 1]?.content ?? [];
  const results = last.flatMap((block) => (block.type === 'tool_result' ? [block.content] : []));
  return JSON.parse(results[results.length - 1] ?? 'null');
}

/**
 * @param {Task} task
 * @param {number} step
 * @param {string} name
 * @param {Record<string, unknown>} input
 * @returns {ScriptedTurn}
 */
function toolUse(task, step, name, input) {
  return { content: [{ type: 'tool_use', id: `toolu_${task.id}_${step}`, name, input }] };
}

/**
 * @param {string} value
 * @param {string[]} evidenceIds
 * @param {string[]} [caveats]
 * @returns {ScriptedTurn}
 */
function answer(value, evidenceIds, caveats = []) {
  return { content: [{ type: 'text', text: JSON.stringify({ answer: value, evidenceIds, caveats }) }] };
}

/**
 * The quoted title in a lookup question.
 * @param {string} question
 */
function quotedTitle(question) {
  const quoted = /"([^"]+)"/.exec(question)?.[1];
  if (quoted === undefined) throw new Error(`no quoted title in ${question}`);
  return quoted;
}

/**
 * @param {string} field
 * @param {Row} record
 */
function fieldOf(field, record) {
  const value = record[field];
  if (value === undefined) throw new Error(`record ${record.id} has no ${field}`);
  return value;
}

/**
 * @param {Task} task
 * @param {number} step
 * @param {ChatMessage[]} messages
 * @returns {ScriptedTurn}
 */
function baselineTurn(task, step, messages) {
  if (step === 0) return toolUse(task, step, 'list_records', {});
  /** @type {{ records: Row[] }} */
  const { records } = lastResult(messages);
  switch (task.kind) {
    case 'lookup': {
      const record = records.find((candidate) => candidate.title === quotedTitle(task.question));
      if (record === undefined) throw new Error(`no record titled as in ${task.question}`);
      return answer(fieldOf(task.detailField ?? '', record), [record.id]);
    }
    case 'aggregate': {
      const ids = records.filter((record) => record[task.aggregateField ?? ''] === task.aggregateValue).map((record) => record.id);
      return answer(String(ids.length), ids, [CAVEAT]);
    }
    case 'later_page': {
      const record = records.find((candidate) => candidate.is_pull_request === 'true' && candidate.title.includes('get_repo_security_advisories'));
      if (record === undefined) throw new Error('no such pull request');
      return answer(record.id, [record.id]);
    }
  }
  throw new Error(`no baseline plan for ${task.kind}`);
}

/**
 * @param {Task} task
 * @param {number} step
 * @param {ChatMessage[]} messages
 * @returns {ScriptedTurn}
 */
function optimizedTurn(task, step, messages) {
  switch (task.kind) {
    case 'lookup': {
      if (step === 0) return toolUse(task, step, 'find_records', { field: 'title', value: quotedTitle(task.question) });
      if (step === 1) return toolUse(task, step, 'exact_record', { id: lastResult(messages).items[0].id });
      /** @type {{ record: Row }} */
      const { record } = lastResult(messages);
      return answer(fieldOf(task.detailField ?? '', record), [record.id]);
    }
    case 'aggregate': {
      const query = { field: task.aggregateField, value: task.aggregateValue };
      if (step === 0) return toolUse(task, step, 'count_by_field', query);
      const page = lastResult(messages);
      if (page.truncated) return toolUse(task, step, 'count_by_field', { ...query, cursor: page.next_cursor });
      // Every page of the audit trail the conversation holds, in order.
      const ids = messages
        .flatMap((message) => message.content)
        .filter((block) => block.type === 'tool_result')
        .flatMap((block) => (block.type === 'tool_result' ? /** @type {string[]} */ (JSON.parse(block.content).items) : []));
      return answer(String(page.count), ids, [CAVEAT]);
    }
    case 'later_page': {
      const query = { field: task.pageField, value: task.pageValue };
      if (step === 0) return toolUse(task, step, 'find_records', query);
      const page = lastResult(messages);
      const found = /** @type {Row[]} */ (page.items).find((record) => record.title.includes('get_repo_security_advisories'));
      if (found) return answer(found.id, [found.id]);
      return toolUse(task, step, 'find_records', { ...query, cursor: page.next_cursor });
    }
  }
  throw new Error(`no optimized plan for ${task.kind}`);
}

/** @type {ScriptedTurns} */
let script = { version: 1, turns: {} };
/** @type {Provider} */
const policy = {
  name: 'scripted',
  baseUrl: null,
  async chat(request) {
    const first = request.messages[0]?.content[0];
    const task = tasks.find((candidate) => first?.type === 'text' && candidate.question === first.text);
    if (task === undefined) throw new Error('a question the tasks file does not have');
    const baseline = (request.tools ?? []).some((tool) => tool.name === 'list_records');
    const step = request.messages.filter((message) => message.role === 'assistant').length;
    const turn = baseline ? baselineTurn(task, step, request.messages) : optimizedTurn(task, step, request.messages);
    script = recordTurn(script, request, turn);
    // Answer through the scripted provider itself, so the recorded turn is exactly what replays.
    return scriptedProvider(script).chat(request);
  },
};

// The config names turns.json as its script and the run hashes it: it must exist, even empty.
if (!existsSync(turnsFile)) writeFileSync(turnsFile, `${JSON.stringify(script)}\n`);
const outDir = mkdtempSync(join(tmpdir(), 'mcpctx-record-turns-'));
try {
  const run = await runExperiment({ configFile, outDir, provider: policy, overrides: { script: turnsFile } });
  if (run.receipt.status !== 'completed' || !run.receipt.report?.allPassed) {
    console.error(JSON.stringify(run.receipt.errors, null, 2));
    console.error(run.receipt.questions.map((question) => `${question.taskId} ${question.condition} ${question.status} ${question.failure?.message ?? ''}`).join('\n'));
    throw new Error('the recording run did not pass every question; turns.json left unchanged');
  }
  writeFileSync(turnsFile, `${JSON.stringify(script, null, 2)}\n`);
  console.log(`wrote ${Object.keys(script.turns).length} turns to ${turnsFile}`);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
