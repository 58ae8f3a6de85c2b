// Another revision's optimizer, side by side with this one: `materializePrevious` writes the `src`
// tree of a git revision (default PREVIOUS_REVISION, the main this work started from) into a temp
// folder with a `node_modules` symlink to this repository's, and returns the path of its
// `src/optimizer/index.ts`; a child process under tsx imports either that path or this tree's.
// `loadPreviousOptimizer` imports it in this process (under tsx), for comparisons such as the
// quality benchmark. The folder is made once per revision and process and removed at exit.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../_harness.js';
import type * as OptimizerModule from '../../src/optimizer/index.js';

/** Today's main when this benchmark was written: the optimizer before the pipeline rewrite. */
export const PREVIOUS_REVISION = 'b8892f9';
/** What the scale child loads: this tree, or the materialised previous revision. */
export const CURRENT_OPTIMIZER = `${PROJECT_ROOT}src/optimizer/index.ts`;

const materialized = new Map<string, string>();

/** The `src/optimizer/index.ts` of `revision`, written out of git into a temp folder (once per process). */
export function materializePrevious(revision: string = PREVIOUS_REVISION): string {
  const known = materialized.get(revision);
  if (known !== undefined) return known;
  if (!/^[0-9A-Za-z._/-]+$/.test(revision)) throw new Error(`not a revision name: ${JSON.stringify(revision)}`);
  const folder = mkdtempSync(join(tmpdir(), 'mcpctx-previous-'));
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  const archive = execFileSync('git', ['archive', '--format=tar', revision, 'src'], { cwd: PROJECT_ROOT, maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', folder], { input: archive });
  // Bare imports (gpt-tokenizer, ...) resolve from the folder up: point its node_modules at ours.
  const modules = join(PROJECT_ROOT, 'node_modules');
  if (existsSync(modules)) symlinkSync(modules, join(folder, 'node_modules'), 'dir');
  const entry = join(folder, 'src', 'optimizer', 'index.ts');
  if (!existsSync(entry)) throw new Error(`revision ${revision} has no src/optimizer/index.ts`);
  materialized.set(revision, entry);
  return entry;
}

/** The previous revision's `mcpctx/optimizer` module, imported in this process (needs tsx). */
export async function loadPreviousOptimizer(revision: string = PREVIOUS_REVISION): Promise<typeof OptimizerModule> {
  return (await import(pathToFileURL(materializePrevious(revision)).href)) as typeof OptimizerModule;
}
