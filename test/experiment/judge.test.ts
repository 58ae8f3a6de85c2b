import { describe, expect, it } from 'vitest';
import { judge } from '../../src/experiment/receipt/_judge.js';
import type { Task, ToolCallRecord, ToolPaths } from '../../src/experiment/_types.js';

const paths: ToolPaths = {
  lookup: { search: 'find_records', matchArgument: 'field', fieldsArgument: 'fields', detail: 'exact_record', idArgument: 'id' },
  aggregate: { count: 'count_by_field' },
  later_page: { page: 'find_records', cursorArgument: 'cursor' },
};

const lookup: Task = {
  id: 'lookup-1',
  kind: 'lookup',
  question: 'Who reported issue 3045 and what is its state reason?',
  expectedAnswer: 'completed',
  evidenceIds: ['3045'],
  requiredCaveats: ['snapshot revision'],
  detailField: 'state_reason',
};
const aggregate: Task = { ...lookup, id: 'aggregate-1', kind: 'aggregate', expectedAnswer: '5', evidenceIds: ['2999'], requiredCaveats: [], aggregateField: 'comments', aggregateValue: '1' };
const laterPage: Task = { ...lookup, id: 'later_page-1', kind: 'later_page', expectedAnswer: 'Fix typo', evidenceIds: ['3050'], requiredCaveats: [], pageField: 'state', pageValue: 'open' };

function call(name: string, args: unknown, text = '{}', extra: Partial<ToolCallRecord> = {}): ToolCallRecord {
  return {
    toolUseId: `toolu_${name}`,
    name,
    arguments: args,
    rpcId: 1,
    isError: false,
    rawContent: [{ type: 'text', text }],
    rawContentBytes: 0,
    rawContentSha256: '',
    modelFacingText: text,
    modelFacingBytes: 0,
    modelFacingSha256: '',
    modelFacingTokens: 0,
    ...extra,
  };
}

const brief = call('find_records', { field: 'author', value: 'EnricoMi', fields: ['title'] }, '{"items":[{"id":"3045","revision":"r","title":"x"}],"truncated":false}');
const detail = call('exact_record', { id: '3045' }, '{"record":{"id":"3045","state_reason":"completed"}}');
const answer = (value: unknown): string => JSON.stringify(value);
const good = answer({ answer: 'completed', evidenceIds: ['3045'], caveats: [' Snapshot \n REVISION '] });

describe('judge: the answer JSON', () => {
  it('passes a right answer with the optimized path, and records what it parsed', () => {
    const { checks, failure } = judge(lookup, 'optimized', paths, [brief, detail], good);
    expect(failure).toBeUndefined();
    expect(checks).toEqual({
      parsed: { answer: 'completed', evidenceIds: ['3045'], caveats: [' Snapshot \n REVISION '] },
      answerMatches: true,
      missingEvidenceIds: [],
      extraEvidenceIds: [],
      unreturnedEvidenceIds: [],
      missingCaveats: [],
      pathOk: true,
    });
  });

  it('takes the inside of one fenced block, tagged json or not', () => {
    expect(judge(lookup, 'baseline', paths, [], `\n\`\`\`json\n${good}\n\`\`\`\n`).failure).toBeUndefined();
    expect(judge(lookup, 'baseline', paths, [], `\`\`\`\n${good}\n\`\`\``).failure).toBeUndefined();
  });

  it('fails NON_JSON_ANSWER on prose around the JSON, two fences, an array and plain text', () => {
    for (const text of [`Here it is: ${good}`, `\`\`\`json\n${good}\n\`\`\`\n\`\`\`json\n${good}\n\`\`\``, '["completed"]', 'completed']) {
      const { checks, failure } = judge(lookup, 'baseline', paths, [], text);
      expect(failure?.code).toBe('NON_JSON_ANSWER');
      expect(checks.parsed).toBeNull();
      expect(checks.answerMatches).toBe(false);
    }
  });

  it('leaves the failure to the runner when there is no final text, and still computes the checks', () => {
    const { checks, failure } = judge(lookup, 'optimized', paths, [], undefined);
    expect(failure).toBeUndefined();
    expect(checks.parsed).toBeNull();
    expect(checks.pathOk).toBe(false);
    expect(checks.missingEvidenceIds).toEqual(['3045']);
  });
});

describe('judge: answer, evidence, caveats', () => {
  it('normalizes whitespace and Unicode composition but not case', () => {
    const nfd = 'Cafe\u0301 bug';
    const task = { ...lookup, expectedAnswer: 'Caf\u00e9  bug' };
    expect(judge(task, 'baseline', paths, [], answer({ answer: `  ${nfd}\n`, evidenceIds: ['3045'], caveats: ['snapshot revision'] })).failure).toBeUndefined();
    const upper = judge(task, 'baseline', paths, [], answer({ answer: 'CAFÉ bug', evidenceIds: ['3045'], caveats: ['snapshot revision'] }));
    expect(upper.failure?.code).toBe('ANSWER_MISMATCH');
    expect(upper.failure?.message).toContain('"CAFÉ bug"');
    expect(upper.failure?.message).toContain('"Café  bug"');
  });

  it('compares a number answer as its text; an object, array or null answer never matches', () => {
    expect(judge(aggregate, 'baseline', paths, [], answer({ answer: 5, evidenceIds: ['2999'], caveats: [] })).failure).toBeUndefined();
    for (const wrong of [{ n: 5 }, ['5'], null]) {
      expect(judge(aggregate, 'baseline', paths, [], answer({ answer: wrong, evidenceIds: ['2999'], caveats: [] })).failure?.code).toBe('ANSWER_MISMATCH');
    }
  });

  it('cuts a long answer to 200 characters in the message', () => {
    const long = 'x'.repeat(5000);
    const { failure } = judge(lookup, 'baseline', paths, [], answer({ answer: long, evidenceIds: ['3045'], caveats: [] }));
    expect(failure?.code).toBe('ANSWER_MISMATCH');
    expect(failure?.message.length).toBeLessThan(400);
  });

  it('needs every expected evidence id (compared as text), and fails EVIDENCE_MISSING otherwise', () => {
    const task = { ...aggregate, evidenceIds: ['2999', '3012'] };
    expect(judge(task, 'baseline', paths, [], answer({ answer: '5', evidenceIds: [3012, '2999', '2999'], caveats: [] })).failure).toBeUndefined();
    const missing = judge(task, 'baseline', paths, [], answer({ answer: '5', evidenceIds: ['2999'], caveats: [] }));
    expect(missing.failure?.code).toBe('EVIDENCE_MISSING');
    expect(missing.checks.missingEvidenceIds).toEqual(['3012']);
    expect(missing.failure?.message).toContain('3012');
    expect(judge(task, 'baseline', paths, [], answer({ answer: '5', evidenceIds: '2999,3012', caveats: [] })).checks.missingEvidenceIds).toEqual(['2999', '3012']);
  });

  // The tools of this question returned records 2999 and 3000..3009 (a baseline listing).
  const listing = call('list_records', {}, JSON.stringify({ items: [2999, 3000, 3001, 3002, 3003, 3004, 3005, 3006, 3007, 3008, 3009].map((id) => ({ id: String(id) })) }));

  it('allows at most 2 extra ids, each one a tool returned; citing every record seen fails EVIDENCE_EXTRA', () => {
    const twoExtras = judge(aggregate, 'baseline', paths, [listing], answer({ answer: '5', evidenceIds: ['2999', '3000', 3001], caveats: [] }));
    expect(twoExtras.failure).toBeUndefined();
    expect(twoExtras.checks.extraEvidenceIds).toEqual(['3000', '3001']);
    const shotgun = judge(aggregate, 'baseline', paths, [listing], answer({ answer: '5', evidenceIds: ['2999', '3000', '3001', '3002', '3003', '3004', '3005', '3006', '3007', '3008', '3009'], caveats: [] }));
    expect(shotgun.failure?.code).toBe('EVIDENCE_EXTRA');
    expect(shotgun.failure?.message).toContain('10 ids beyond the expected ["2999"] (at most 2 allowed)');
    expect(judge(aggregate, 'baseline', paths, [listing], answer({ answer: '5', evidenceIds: ['2999', '3000', '3001', '3002'], caveats: [] })).failure?.code).toBe('EVIDENCE_EXTRA');
  });

  it('fails EVIDENCE_NOT_RETURNED for an extra id no tool returned (or only a failed call did)', () => {
    const invented = judge(aggregate, 'baseline', paths, [listing], answer({ answer: '5', evidenceIds: ['2999', '4242'], caveats: [] }));
    expect(invented.failure?.code).toBe('EVIDENCE_NOT_RETURNED');
    expect(invented.checks.unreturnedEvidenceIds).toEqual(['4242']);
    expect(invented.failure?.message).toContain('["4242"]');
    const failed = call('exact_record', { id: '4242' }, '{"id":"4242"}', { isError: true });
    expect(judge(aggregate, 'baseline', paths, [listing, failed], answer({ answer: '5', evidenceIds: ['2999', '4242'], caveats: [] })).failure?.code).toBe('EVIDENCE_NOT_RETURNED');
    const jsonLines = call('list_records', {}, '{"id":"4242"}\n{"id":"2999"}');
    expect(judge(aggregate, 'baseline', paths, [jsonLines], answer({ answer: '5', evidenceIds: ['2999', '4242'], caveats: [] })).failure).toBeUndefined();
  });

  it('matches a required caveat as an exact string, case-insensitively with whitespace normalized, and fails CAVEAT_MISSING otherwise', () => {
    expect(judge(lookup, 'baseline', paths, [], answer({ answer: 'completed', evidenceIds: ['3045'], caveats: ['other', '  SNAPSHOT\tREVISION '] })).failure).toBeUndefined();
    const missing = judge(lookup, 'baseline', paths, [], answer({ answer: 'completed', evidenceIds: ['3045'], caveats: ['snapshot'] }));
    expect(missing.failure?.code).toBe('CAVEAT_MISSING');
    expect(missing.checks.missingCaveats).toEqual(['snapshot revision']);
    const notStrings = judge(lookup, 'baseline', paths, [], answer({ answer: 'completed', evidenceIds: ['3045'], caveats: ['snapshot revision', 1] }));
    expect(notStrings.checks.missingCaveats).toEqual(['snapshot revision']);
  });

  it('fails a caveat that contradicts the required one while containing it', () => {
    const task = { ...aggregate, requiredCaveats: ['frozen snapshot'] };
    const contradicting = judge(task, 'baseline', paths, [], answer({ answer: '5', evidenceIds: ['2999'], caveats: ['this is NOT a frozen snapshot'] }));
    expect(contradicting.failure?.code).toBe('CAVEAT_MISSING');
    expect(contradicting.failure?.message).toContain('"this is NOT a frozen snapshot"');
  });

  it('reports the first failure in the documented order', () => {
    const allWrong = answer({ answer: 'no', evidenceIds: [], caveats: [] });
    expect(judge(lookup, 'optimized', paths, [], allWrong).failure?.code).toBe('PATH_MISMATCH');
    expect(judge(lookup, 'baseline', paths, [], allWrong).failure?.code).toBe('ANSWER_MISMATCH');
    expect(judge(lookup, 'baseline', paths, [], answer({ answer: 'completed', evidenceIds: [], caveats: [] })).failure?.code).toBe('EVIDENCE_MISSING');
  });
});

describe('judge: the tool path (optimized only)', () => {
  const right = answer({ answer: 'completed', evidenceIds: ['3045'], caveats: ['snapshot revision'] });

  it('the baseline path is always right', () => {
    expect(judge(lookup, 'baseline', paths, [], right).checks.pathOk).toBe(true);
  });

  it('lookup: a brief search listing the evidence, then the detail call', () => {
    expect(judge(lookup, 'optimized', paths, [brief, detail], right).checks.pathOk).toBe(true);
    // The detail call must come later.
    expect(judge(lookup, 'optimized', paths, [detail, brief], right).failure?.code).toBe('PATH_MISMATCH');
    // A search that asks for the detail field, or matches on it, is not brief.
    const asks = call('find_records', { field: 'author', value: 'EnricoMi', fields: ['title', 'state_reason'] }, brief.modelFacingText);
    expect(judge(lookup, 'optimized', paths, [asks, detail], right).checks.pathOk).toBe(false);
    const matches = call('find_records', { field: 'state_reason', value: 'completed' }, brief.modelFacingText);
    expect(judge(lookup, 'optimized', paths, [matches, detail], right).checks.pathOk).toBe(false);
    // The search must have shown the model an evidence id.
    const other = call('find_records', { field: 'author', value: 'x' }, '{"items":[{"id":"1"}]}');
    expect(judge(lookup, 'optimized', paths, [other, detail], right).checks.pathProblem).toContain('evidence id');
    // An error result does not count, nor does a detail call for another id.
    expect(judge(lookup, 'optimized', paths, [{ ...brief, isError: true }, detail], right).checks.pathOk).toBe(false);
    expect(judge(lookup, 'optimized', paths, [brief, call('exact_record', { id: '1' })], right).checks.pathOk).toBe(false);
    expect(judge(lookup, 'optimized', paths, [brief, { ...detail, error: 'DEADLINE' }], right).checks.pathOk).toBe(false);
  });

  it('aggregate: a count call that returned a result', () => {
    const ok = answer({ answer: '5', evidenceIds: ['2999'], caveats: [] });
    expect(judge(aggregate, 'optimized', paths, [call('count_by_field', { field: 'comments', value: '1' })], ok).failure).toBeUndefined();
    expect(judge(aggregate, 'optimized', paths, [call('find_records', { field: 'comments', value: '1' })], ok).failure?.code).toBe('PATH_MISMATCH');
    expect(judge(aggregate, 'optimized', paths, [call('count_by_field', {}, 'boom', { isError: true })], ok).failure?.code).toBe('PATH_MISMATCH');
  });

  it('later_page: a page call that passed a non-empty cursor', () => {
    const ok = answer({ answer: 'Fix typo', evidenceIds: ['3050'], caveats: [] });
    expect(judge(laterPage, 'optimized', paths, [call('find_records', { field: 'state', value: 'open', cursor: 'abc' })], ok).failure).toBeUndefined();
    for (const cursor of ['', undefined, 7]) {
      const { failure } = judge(laterPage, 'optimized', paths, [call('find_records', { field: 'state', value: 'open', cursor })], ok);
      expect(failure?.code).toBe('PATH_MISMATCH');
      expect(failure?.message).toContain('cursor');
    }
  });
});
