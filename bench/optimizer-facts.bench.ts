// Required facts kept, this tree's optimizer against the optimizer of PREVIOUS_REVISION (today's main
// when this work began) and a newest-first baseline, on three sets:
//   - the blind set of bench/optimizer/blind/ (six sessions frozen before the first run; never tuned
//     on), each at budgets 1,500, 3,000 and 6,000;
//   - the second tuning set of bench/optimizer/tuning/ (written blind, then tuned on), at the same budgets;
//   - the twelve tuned scenarios and the six held-out ones, each at its own budget;
//   - the blind transcripts of bench/optimizer/blind-transcripts/ (six agent sessions in the three
//     formats the importer reads, frozen before the first run; never tuned on), imported as
//     `optimize --transcript` imports them, the task their last user request, at 1,500, 3,000,
//     6,000 and 8,000 (the compaction hook's default).
// A fact is kept when it is an exact substring of the context; for the transcript sets, of what the
// compaction hook hands the agent: the task (its heading names it) and the context. Budget: o200k
// tokens of the context.
import { countTokens } from '../src/tokens/index.js';
import type { BenchContext, BenchReport } from './_harness.js';
import { loadPreviousOptimizer, PREVIOUS_REVISION } from './optimizer/_previous.js';
import { BLIND_DIR, HELDOUT_DIR, loadScenarios, loadTranscriptScenarios, SCENARIO_DIR, TUNING_DIR, TUNING_TRANSCRIPTS_DIR, type BenchScenario } from './optimizer/_scenarios.js';
import { newestFirstContext, rawStrategy } from './optimizer/_strategies.js';
import { ContextOptimizer } from '../src/optimizer/index.js';
import type { SessionRecords } from '../src/optimizer/_types.js';

const BLIND_BUDGETS = [1_500, 3_000, 6_000] as const;
const TRANSCRIPT_BUDGETS = [1_500, 3_000, 6_000, 8_000] as const;
type Contender = 'newest-first' | 'previous' | 'current';
const CONTENDERS: readonly Contender[] = ['newest-first', 'previous', 'current'];

interface Run {
  set: 'blind' | 'tuning' | 'tuned' | 'heldout' | 'transcripts' | 'transcript-tuning';
  scenario: string;
  budget: number;
  contender: Contender;
  kept: number;
  /** Transcript sets: facts in the context alone, without the task the hook's heading names. */
  keptInContext?: number;
  facts: number;
  lost: string[];
  tokens: number;
  withinBudget: boolean;
  conflict: boolean;
}

interface Builder {
  buildContext(input: object): { context: string; report: { selection: { conflict?: unknown } } };
}

/** The previous revision predates records' `session` field (the importer sets it on every record of a transcript, all to the one session): left out for it. */
function withoutSessions(records: SessionRecords): SessionRecords {
  return Object.fromEntries(
    Object.entries(records).map(([kind, list]) => [kind, Array.isArray(list) ? list.map((record: object) => Object.fromEntries(Object.entries(record).filter(([key]) => key !== 'session'))) : list]),
  ) as SessionRecords;
}

function measure(set: Run['set'], scenario: BenchScenario, budget: number, contender: Contender, builders: Record<'previous' | 'current', Builder>): Run {
  let context: string;
  let conflict = false;
  if (contender === 'newest-first') context = newestFirstContext(scenario, budget);
  else {
    const records = contender === 'previous' ? withoutSessions(scenario.records) : scenario.records;
    const result = builders[contender].buildContext({ ...records, task: scenario.task, tokenBudget: budget });
    context = result.context;
    conflict = result.report.selection.conflict !== undefined;
  }
  const transcript = set === 'transcripts' || set === 'transcript-tuning';
  const delivered = transcript ? `${scenario.task}\n${context}` : context;
  const lost = scenario.requiredFacts.filter((fact) => !delivered.includes(fact));
  const tokens = countTokens(context);
  const run: Run = { set, scenario: scenario.name, budget, contender, kept: scenario.requiredFacts.length - lost.length, facts: scenario.requiredFacts.length, lost, tokens, withinBudget: tokens <= budget, conflict };
  if (transcript) run.keptInContext = scenario.requiredFacts.filter((fact) => context.includes(fact)).length;
  return run;
}

function total(runs: readonly Run[], contender: Contender): { kept: number; facts: number } {
  const mine = runs.filter((run) => run.contender === contender);
  return { kept: mine.reduce((sum, run) => sum + run.kept, 0), facts: mine.reduce((sum, run) => sum + run.facts, 0) };
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const previous = await loadPreviousOptimizer();
  const builders = { previous: new previous.ContextOptimizer() as Builder, current: new ContextOptimizer() as Builder };
  const runs: Run[] = [];
  for (const [set, dir] of [['blind', BLIND_DIR], ['tuning', TUNING_DIR]] as const) {
    for (const scenario of loadScenarios(dir)) {
      progress(`${set} ${scenario.name}`);
      for (const budget of BLIND_BUDGETS) for (const contender of CONTENDERS) runs.push(measure(set, scenario, budget, contender, builders));
    }
  }
  for (const [set, dir] of [['tuned', SCENARIO_DIR], ['heldout', HELDOUT_DIR]] as const) {
    for (const scenario of loadScenarios(dir)) {
      progress(`${set} ${scenario.name}`);
      for (const contender of CONTENDERS) runs.push(measure(set, scenario, scenario.tokenBudget, contender, builders));
    }
  }
  // A fact the import does not carry is the importer's loss, not the optimizer's: counted apart.
  const notImported: string[] = [];
  const transcripts = loadTranscriptScenarios();
  for (const [set, scenarios] of [['transcripts', transcripts], ['transcript-tuning', loadTranscriptScenarios(TUNING_TRANSCRIPTS_DIR)]] as const) {
    for (const scenario of scenarios) {
      progress(`${set} ${scenario.name}`);
      const everything = rawStrategy(scenario).context;
      for (const fact of scenario.requiredFacts) if (!everything.includes(fact)) notImported.push(`${scenario.name}: ${fact}`);
      for (const budget of TRANSCRIPT_BUDGETS) for (const contender of CONTENDERS) runs.push(measure(set, scenario, budget, contender, builders));
    }
  }

  const rowsOf = (set: Run['set']): Array<Array<string | number>> => {
    const keyed = new Map<string, Partial<Record<Contender, Run>>>();
    for (const item of runs.filter((entry) => entry.set === set)) {
      const key = `${item.scenario}\u0000${item.budget}`;
      keyed.set(key, { ...keyed.get(key), [item.contender]: item });
    }
    return [...keyed.values()].map((row) => {
      const current = row.current as Run;
      const cell = (item: Run | undefined): string => (item === undefined ? '' : `${item.kept}/${item.facts}${item.withinBudget ? '' : item.conflict ? ' CONFLICT' : ' OVER'}`);
      return [set, current.scenario, current.budget, cell(row['newest-first']), cell(row.previous), cell(row.current), current.tokens];
    });
  };

  const sets = ['blind', 'tuning', 'tuned', 'heldout', 'transcripts', 'transcript-tuning'] as const;
  const totals = Object.fromEntries(sets.map((set) => [set, Object.fromEntries(CONTENDERS.map((contender) => [contender, total(runs.filter((entry) => entry.set === set), contender)]))]));
  const behindBaselineIn = (set: Run['set']): Run[] =>
    runs.filter((entry) => {
      if (entry.set !== set || entry.contender !== 'current') return false;
      const baseline = runs.find((other) => other.set === set && other.contender === 'newest-first' && other.scenario === entry.scenario && other.budget === entry.budget);
      return baseline !== undefined && entry.kept < baseline.kept;
    });
  const behindBaseline = behindBaselineIn('blind');
  const transcriptsBehindBaseline = behindBaselineIn('transcripts');
  const transcriptBudgets = TRANSCRIPT_BUDGETS.map((budget) => {
    const atBudget = runs.filter((entry) => entry.set === 'transcripts' && entry.contender === 'current' && entry.budget === budget);
    const kept = atBudget.reduce((sum, entry) => sum + entry.kept, 0);
    const facts = atBudget.reduce((sum, entry) => sum + entry.facts, 0);
    return { budget, kept, facts, worstScenario: Math.min(...atBudget.map((entry) => entry.kept / entry.facts)) };
  });
  const overBudget = runs.filter((entry) => entry.contender === 'current' && !entry.withinBudget && !entry.conflict);
  const cells = (set: Run['set']): string =>
    CONTENDERS.map((contender) => `${contender} ${(totals[set] as Record<Contender, { kept: number; facts: number }>)[contender].kept}/${(totals[set] as Record<Contender, { kept: number; facts: number }>)[contender].facts}`).join(', ');
  return {
    title: `Required facts kept: this tree's optimizer against ${PREVIOUS_REVISION}'s and a newest-first baseline (blind and second tuning sets at 1,500 / 3,000 / 6,000; tuned and held-out sets at their budgets; blind transcripts at 1,500 / 3,000 / 6,000 / 8,000)`,
    table: { columns: ['set', 'scenario', 'budget', 'newest-first', PREVIOUS_REVISION, 'current', 'current tokens'], rows: sets.flatMap((set) => rowsOf(set)) },
    figures: {
      previousRevision: PREVIOUS_REVISION,
      blindBudgets: BLIND_BUDGETS,
      totals,
      currentBehindBaseline: behindBaseline.map((entry) => `${entry.scenario}@${entry.budget}`),
      transcriptBudgets,
      transcriptsBehindBaseline: transcriptsBehindBaseline.map((entry) => `${entry.scenario}@${entry.budget}`),
      transcriptFactsNotImported: notImported,
      transcripts: transcripts.map((scenario) => ({ name: scenario.name, format: scenario.format, records: Object.values(scenario.records).reduce((sum, list) => sum + (Array.isArray(list) ? list.length : 0), 0), taskChars: scenario.task.length })),
      currentOverBudgetWithoutConflict: overBudget.map((entry) => `${entry.set}/${entry.scenario}@${entry.budget}`),
      runs,
    },
    notes: [
      `blind (never tuned on): ${cells('blind')}`,
      `second tuning set (tuned on): ${cells('tuning')}`,
      `tuned scenarios: ${cells('tuned')}`,
      `held-out (first blind set): ${cells('heldout')}`,
      `blind transcripts (never tuned on; kept = in the task the hook's heading names or in the context; in the context alone, current: ${runs.filter((entry) => entry.set === 'transcripts' && entry.contender === 'current').reduce((sum, entry) => sum + (entry.keptInContext ?? 0), 0)}): ${cells('transcripts')}; by budget (current): ${transcriptBudgets.map((entry) => `${entry.budget}: ${entry.kept}/${entry.facts}, worst session ${Math.round(entry.worstScenario * 100)}%`).join('; ')}; behind the newest-first baseline in ${transcriptsBehindBaseline.length} run(s)${transcriptsBehindBaseline.length === 0 ? '' : `: ${transcriptsBehindBaseline.map((entry) => `${entry.scenario}@${entry.budget}`).join(', ')}`}; facts the import does not carry: ${notImported.length}${notImported.length === 0 ? '' : ` (${notImported.join(' | ')})`}.`,
      `transcript tuning set (tuned on): ${cells('transcript-tuning')}`,
      `current behind the newest-first baseline in ${behindBaseline.length} blind run(s)${behindBaseline.length === 0 ? '' : `: ${behindBaseline.map((entry) => `${entry.scenario}@${entry.budget}`).join(', ')}`}; over budget without a conflict: ${overBudget.length}.`,
    ],
  };
}
