import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { McpctxError } from '../errors/index.js';
import type { DockerNetwork } from '../measure/index.js';
import { plural, printableText } from '../text/index.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_CONTAINER,
  DOCKER_NETWORKS,
  GUARD_MIN_REGRESSED,
  MAX_CONCURRENCY,
  MAX_ROTATION_WEEKS,
  isoDateOf,
  mergeSweep,
  parseShard,
  previewSweep,
  sweep,
  type MergeReport,
  type SkipReason,
  type SweepPreview,
  type ShardSpec,
  type SweepReport,
} from '../results/sweep/index.js';
import { DEFAULT_CLAUDE_KEY_ENV, claudeCounter, type ClaudeFlags } from './_claude.js';
import { exampleHelp } from './_help.js';
import { EXIT, invocationOf, type CliIo } from './_io.js';
import { formatCount, renderTable } from './_table.js';
import { parsePositiveInteger } from './_parse.js';

interface SweepFlags extends ClaudeFlags {
  out: string;
  shard?: ShardSpec;
  rotation?: number;
  always?: string[];
  only?: string[];
  concurrency: number;
  isolation: 'host' | 'docker';
  dockerImage: string;
  dockerNetwork: string;
  dockerMemory: string;
  dockerCpus: string;
  dockerPids: number;
  dockerNpmCache?: string;
  json?: boolean;
  progress?: boolean;
  dryRun?: boolean;
  date?: string;
}

/** Longest note the table shows; --json and the results keep the whole note. */
const TABLE_NOTE_CHARS = 80;

export function setupSweep(command: Command, io: CliIo, setExit: (code: number) => void): void {
  command
    .description(
      [
        'Measures the entries of SERVERS (YAML or JSON, as measure --servers reads it) and rewrites --out, a results folder: <server>/measurement.json and tool-vectors.json, history.csv, leaderboard.md and .json, regressions.md and .json, capture-index.json, tool-shape.json, badges/*.svg and sweep.json. What --out already holds is the previous state: entries not measured this run keep their last record.',
        'Every entry ends with exactly one status: measured, dynamic, auth-required, startup-failure, timeout, protocol-mismatch, protocol-limit, redirect-refused (as measure gives them), remote-auth-wall (a remote server that answered 401 or 403; a url entry behind OAuth is measured with the login mcpctx auth login URL stored, and auth: oauth on the entry says it needs one), not-applicable (declared with notApplicable: {reason, expect} in the servers file, and the failure\'s own words, its note or stderr tail, contain expect; otherwise the real failure is published), or not-yet-run (never measured: left out by --shard, --rotation or --only).',
        'Retries: a startup-failure is measured once more at the same budget; a timeout once more with the budget doubled (at most 24 h). The note says which retry the result came from and the widest budget tried. A protocol-mismatch, a protocol-limit or a redirect-refused is never retried (a retry meets the same answer), nor is any other status.',
        `Harness guard: servers swept this run that had a real number before (measured or dynamic with at least one tool) could regress; if ${GUARD_MIN_REGRESSED} or more of them now fail and they are at least half of those that could, the machine is suspected, not the servers: nothing is written, every file of --out stays byte for byte as it was, and the exit code is 1. Without previous numbers the report says the check could not be made.`,
        `Selection (combined as an intersection): --shard I/N measures a stable slice by a hash of each name (independent of the list order); --rotation WEEKS measures the group of names (by another hash) that the ISO week number of the sweep date picks (week mod WEEKS), so each entry is measured once every WEEKS weeks, and a week the sweep does not run waits for the next cycle; --always NAME (repeatable, with --rotation) also measures NAME every week, outside the rotation (the reference server: a drift check of the harness); --only NAME... measures only those names (an unknown name is a usage error listing the names). Put --only after SERVERS: it takes every name that follows.`,
        `--concurrency K measures K servers at once (default ${DEFAULT_CONCURRENCY}, at most ${MAX_CONCURRENCY}); the results and their order (the servers file's) do not depend on it. --isolation docker runs each stdio entry as docker run --rm -i --network NET --memory MEM --memory-swap MEM --cpus CPUS --pids-limit PIDS IMAGE COMMAND ARGS (defaults: --docker-image ${DEFAULT_CONTAINER.image}, --docker-network ${DEFAULT_CONTAINER.network}, which reaches the npm registry but not this host's loopback, or host, or none; --docker-memory ${DEFAULT_CONTAINER.memory} with no swap, --docker-cpus ${DEFAULT_CONTAINER.cpus}, --docker-pids ${DEFAULT_CONTAINER.pids}; --docker-npm-cache VOLUME mounts a docker volume as the npm cache of every container, so each package installs once, not once per capture; env values pass by name with -e NAME, never in the arguments; paths in the arguments must exist in the image) and records isolation kind docker with the image, network and limits in isolation.container; remote entries are never wrapped.`,
        '--claude-model M also measures, for every server measured, what its tools add to an Anthropic request (count_tokens with and without the tools projected to name, description and input_schema; tools-delta/v1), into a claude block of its measurement.json; the leaderboard then shows a claude column. The key comes from ANTHROPIC_API_KEY or --claude-key-env; a failed count leaves that record without the block and is listed after the table.',
        `${invocationOf(io)} sweep merge DIR... --out RESULTS combines the --out folders of the shards of one sweep into exactly the files one unsharded sweep would write.`,
        'Progress, one line per server done (k/n, name, status, tokens, elapsed), goes to stderr when it is a terminal, or always with --progress (a sweep run in the background with its output in files); never to stdout. Exit codes: 0 the sweep was written (whatever the servers\' statuses); 1 the harness guard tripped, nothing written; 2 usage or servers file error (also --isolation docker without docker); 3 the results could not be read or written.',
      ].join('\n\n'),
    )
    .argument('[servers]', 'the servers file (YAML or JSON)')
    .option('--out <dir>', 'the results folder: the previous state, rewritten (required)')
    .option('--shard <I/N>', 'measure only the I-th of N stable slices, 1-based (default: every entry)', (value: string) => asOption(() => parseShard(value)))
    .option('--rotation <weeks>', `measure only this ISO week's group of names, one of WEEKS (1..${MAX_ROTATION_WEEKS}) (default: every entry)`, parsePositiveInteger)
    .option('--always <name>', 'with --rotation: also measure this entry every week, outside the rotation; repeatable (default: none)', collect, undefined)
    .option('--only <name...>', 'measure only these entries, named as in the servers file (default: every entry)')
    .option('--concurrency <k>', `servers measured at once (1..${MAX_CONCURRENCY})`, parsePositiveInteger, DEFAULT_CONCURRENCY)
    .option('--isolation <kind>', 'host, or docker (each stdio server in a container)', parseIsolation, 'host' as const)
    .option('--docker-image <image>', 'the image for --isolation docker', DEFAULT_CONTAINER.image)
    .option('--docker-network <net>', `the container's network for --isolation docker: ${DOCKER_NETWORKS.join(', ')}`, DEFAULT_CONTAINER.network)
    .option('--docker-memory <size>', 'the container\'s memory limit for --isolation docker, no swap (k, m or g)', DEFAULT_CONTAINER.memory)
    .option('--docker-cpus <n>', 'the cores the container may use for --isolation docker', DEFAULT_CONTAINER.cpus)
    .option('--docker-pids <n>', 'the most processes the container may hold for --isolation docker', parsePositiveInteger, DEFAULT_CONTAINER.pids)
    .option('--docker-npm-cache <volume>', 'for --isolation docker: a docker volume mounted as every container\'s npm cache, so a package installs once per sweep (default: none, each container installs cold)')
    .option('--json', 'print the run report as JSON')
    .option('--dry-run', 'print which entries the selection measures and why each other is skipped; measure and write nothing (default: sweep)')
    .option('--date <YYYY-MM-DD>', 'with --dry-run: preview the selection of another day (default: today, UTC; a sweep always uses the day it runs)')
    .option('--progress', 'print progress on stderr even when it is not a terminal (default: only on a terminal)')
    .option('--claude-model <model>', 'also measure the Claude divergence of every server measured (count_tokens; tools-delta/v1) (default: not measured)')
    .option('--claude-key-env <NAME>', 'with --claude-model: the environment variable holding the Anthropic API key', DEFAULT_CLAUDE_KEY_ENV)
    .option('--claude-base-url <url>', 'with --claude-model: the Messages API base URL (default: https://api.anthropic.com)')
    .addHelpText('after', exampleHelp(io, 'sweep servers.yaml --out results --concurrency 4'))
    .action(async (servers: string | undefined, flags: SweepFlags) => {
      if (servers === undefined) throw new McpctxError('USAGE', `give the servers file: ${invocationOf(io)} sweep SERVERS.yaml --out results/`);
      if (flags.date !== undefined && flags.dryRun !== true) {
        throw new McpctxError('USAGE', '--date previews another day\'s selection with --dry-run; a sweep always uses the day it runs (its records carry that date)');
      }
      if (flags.dryRun === true) {
        const preview = await previewSweep({
          serversFile: resolve(io.cwd, servers),
          date: flags.date ?? isoDateOf(new Date()),
          shard: flags.shard,
          rotationWeeks: flags.rotation,
          always: flags.always,
          only: flags.only,
        });
        io.stdout.write(flags.json ? `${JSON.stringify(preview, null, 2)}\n` : renderPreview(preview));
        setExit(EXIT.ok);
        return;
      }
      if (flags.out === undefined) throw new McpctxError('USAGE', 'give the results folder with --out DIR');
      const claude = flags.claudeModel === undefined ? undefined : { model: flags.claudeModel, count: claudeCounter(flags.claudeModel, flags, io) };
      const report = await sweep({
        ...(claude === undefined ? {} : { claude }),
        serversFile: resolve(io.cwd, servers),
        outDir: resolve(io.cwd, flags.out),
        shard: flags.shard,
        rotationWeeks: flags.rotation,
        always: flags.always,
        only: flags.only,
        concurrency: flags.concurrency,
        isolation: flags.isolation,
        // Checked by the sweep (containerSettings), which names the option a bad value came from.
        container: { image: flags.dockerImage, network: flags.dockerNetwork as DockerNetwork, memory: flags.dockerMemory, cpus: flags.dockerCpus, pids: flags.dockerPids, npmCache: flags.dockerNpmCache ?? null },
        // The command's own environment decides whether docker is there (tests pass none).
        path: io.env.PATH ?? '',
        env: io.env,
        onProgress:
          flags.progress === true || io.stderr.isTTY === true
            ? (step) =>
                void io.stderr.write(
                  `[${step.done}/${step.total}] ${printableText(step.name, 'note')}: ${step.status}${step.totalTokens === null ? '' : `, ${formatCount(step.totalTokens)} tokens`} (${formatCount(step.elapsedMs)} ms)\n`,
                )
            : undefined,
      });
      io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
      for (const server of report.servers) {
        if (server.claudeError !== undefined) io.stderr.write(`${printableText(server.name, 'note')}: claude divergence failed: ${printableText(server.claudeError, 'note')}\n`);
      }
      setExit(report.guard.tripped ? EXIT.finding : EXIT.ok);
    });

  command
    .command('merge')
    .summary('combine the results folders of a sharded sweep into one')
    .description(
      'Combines the --out folders written by the shards of one sweep (each holds sweep.json, which records its --shard I/N) into exactly the files one unsharded sweep would have written, in --out. When shards of the sweep are missing, a warning names them and nothing is written (their servers would be published as not swept), unless --partial. Exit codes: 0 merged; 1 shards are missing, nothing written; 2 usage error; 3 a folder cannot be read or written.',
    )
    .argument('<dirs...>', 'the shard results folders')
    .requiredOption('--out <dir>', 'the merged results folder')
    .option('--partial', 'write the merge even when shards are missing, with a warning (default: refuse, exit 1)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', exampleHelp(io, 'sweep merge shard-1 shard-2 shard-3 --out results'))
    .action(async (dirs: string[], flags: { out: string; partial?: boolean; json?: boolean }) => {
      const report = await mergeSweep({ shardDirs: dirs.map((dir) => resolve(io.cwd, dir)), outDir: resolve(io.cwd, flags.out), partial: flags.partial === true });
      const warning = mergeWarning(report);
      if (warning !== undefined) io.stderr.write(`${warning}\n`);
      const done = report.written
        ? `merged ${plural(dirs.length, 'shard')} (${plural(report.servers.length, 'server')}, sweep of ${report.date}): wrote ${plural(report.files, 'file')} to ${printableText(report.outDir, 'note')}\n`
        : `nothing written; ${printableText(report.outDir, 'note')} is unchanged\n`;
      io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : done);
      setExit(report.written ? EXIT.ok : EXIT.finding);
    });
}

/** Says which shards a merge lacked, and what became of their servers; nothing when none is missing. */
function mergeWarning(report: MergeReport): string | undefined {
  const { missing, present } = report.shards;
  if (missing.length === 0) return undefined;
  const which = `${missing.length === 1 ? 'shard' : 'shards'} ${missing.join(', ')} of the sweep ${missing.length === 1 ? 'is' : 'are'} missing (given: ${present.join(', ')})`;
  return report.written
    ? `warning: ${which}; merged anyway (--partial): their servers keep the records the shards started from, or not-yet-run`
    : `warning: ${which}; nothing written. Merge every shard, or pass --partial to write the merge anyway`;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function asOption<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function parseIsolation(value: string): 'host' | 'docker' {
  if (value !== 'host' && value !== 'docker') throw new InvalidArgumentError(`expected host or docker, got "${value}"`);
  return value;
}

const SKIP_WORDS: Record<SkipReason, string> = {
  only: 'not named by --only',
  rotation: 'another week\'s rotation group',
  shard: 'another shard',
};

function renderPreview(preview: SweepPreview): string {
  const always = new Set(preview.rotation?.always ?? []);
  const table = renderTable(
    [{ header: 'server' }, { header: 'measured' }, { header: 'why' }],
    preview.entries.map(({ name, swept, skippedBy }) => [
      name,
      swept ? 'yes' : 'no',
      skippedBy !== null ? SKIP_WORDS[skippedBy] : always.has(name) ? 'every week (--always)' : preview.rotation !== null ? 'this week\'s rotation group' : '',
    ]),
  );
  const { rotation } = preview;
  const week = rotation === null ? '' : ` (ISO week ${rotation.isoWeek}: rotation group ${rotation.group + 1} of ${rotation.weeks})`;
  const measured = preview.entries.filter((planned) => planned.swept).length;
  return `${table.trimEnd()}\n\nsweep of ${preview.date}${week} would measure ${measured} of ${plural(preview.entries.length, 'server')}; nothing measured or written\n`;
}

function renderReport(report: SweepReport): string {
  const table = renderTable(
    [{ header: 'server' }, { header: 'status' }, { header: 'tools', align: 'right' }, { header: 'tokens', align: 'right' }, { header: 'note' }],
    report.servers.map((server) => [server.name, server.status, formatCount(server.toolCount), formatCount(server.totalTokens), shortNote(server.note)]),
  );
  const swept = report.servers.filter((server) => server.swept).length;
  const lines = [table.trimEnd(), ''];
  const counts = new Map<string, number>();
  for (const server of report.servers) counts.set(server.status, (counts.get(server.status) ?? 0) + 1);
  const byStatus = [...counts].map(([status, count]) => `${count} ${status}`).join(', ');
  lines.push(`sweep of ${report.date}: swept ${swept} of ${plural(report.servers.length, 'server')}; ${byStatus}`);
  lines.push(report.guard.note);
  lines.push(report.written ? `wrote ${plural(report.files, 'file')} to ${printableText(report.outDir, 'note')}` : `nothing written; ${printableText(report.outDir, 'note')} is unchanged`);
  return `${lines.join('\n')}\n`;
}

function shortNote(note: string): string {
  const chars = [...note];
  return chars.length > TABLE_NOTE_CHARS ? `${chars.slice(0, TABLE_NOTE_CHARS - 1).join('')}…` : note;
}
