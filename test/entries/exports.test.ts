// Every public entry's runtime exports, compared with a committed list: each export is a promise
// to keep, so adding or removing one is a decision made in a diff of
// test/entries/exports.snapshot.json, never a side effect of an `export` in some file. The entries
// are the package's "exports" (each `mcpctx/*` subpath), imported from their sources
// (src/.../index.ts, through tsconfig.build.json's src → dist mapping; see entrySource).
//
// After a deliberate change, rewrite the list and commit it with the change:
//   UPDATE_EXPORTS=1 npx vitest run test/entries/exports.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, entrySource } from '../support/import-graph.js';

const SNAPSHOT = join(ROOT, 'test/entries/exports.snapshot.json');
const SNAPSHOT_NAME = 'test/entries/exports.snapshot.json';
const UPDATE = process.env.UPDATE_EXPORTS === '1';
const HOW_TO_UPDATE = `If the change is deliberate, run UPDATE_EXPORTS=1 npx vitest run test/entries/exports.test.ts and commit ${SNAPSHOT_NAME}.`;

type Surface = Record<string, string[]>;

/** `mcpctx`, `mcpctx/tokens`, ...: every subpath of package.json "exports" that maps to built code. */
function publicEntries(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
  return Object.entries(manifest.exports)
    .filter(([, target]) => typeof target === 'object' && target !== null && 'default' in target)
    .map(([subpath]) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice('./'.length)}`));
}

async function runtimeExports(entry: string): Promise<string[]> {
  const module = (await import(pathToFileURL(entrySource(entry)).href)) as Record<string, unknown>;
  return Object.keys(module).sort();
}

function readSnapshot(): Surface {
  try {
    return JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Surface;
  } catch (error) {
    throw new Error(`cannot read ${SNAPSHOT_NAME} (${String(error)}). ${HOW_TO_UPDATE}`, { cause: error });
  }
}

/** One line per difference, naming the entry and the export. */
function differences(entry: string, actual: readonly string[], expected: readonly string[] | undefined): string[] {
  if (expected === undefined) return [`${entry}: a public entry that ${SNAPSHOT_NAME} does not list (exports ${actual.join(', ') || 'nothing'})`];
  const listed = new Set(expected);
  const present = new Set(actual);
  return [
    ...actual.filter((name) => !listed.has(name)).map((name) => `${entry}: new export ${name} (not in ${SNAPSHOT_NAME})`),
    ...expected.filter((name) => !present.has(name)).map((name) => `${entry}: export ${name} is gone (${SNAPSHOT_NAME} lists it)`),
  ];
}

const ENTRIES = publicEntries();

describe('public entries export exactly the names in exports.snapshot.json', () => {
  if (UPDATE) {
    it(`writes ${SNAPSHOT_NAME} (UPDATE_EXPORTS=1)`, async () => {
      const surface: Surface = {};
      for (const entry of ENTRIES) surface[entry] = await runtimeExports(entry);
      writeFileSync(SNAPSHOT, `${JSON.stringify(surface, null, 2)}\n`);
    });
    return;
  }

  it('lists every public entry of package.json "exports", and no other', () => {
    const listed = Object.keys(readSnapshot());
    const stale = listed.filter((entry) => !ENTRIES.includes(entry)).map((entry) => `${entry}: listed in ${SNAPSHOT_NAME} but no longer a public entry`);
    expect(stale, `${stale.join('\n')}\n${HOW_TO_UPDATE}`).toEqual([]);
  });

  it.each(ENTRIES)('%s', async (entry) => {
    const problems = differences(entry, await runtimeExports(entry), readSnapshot()[entry]);
    expect(problems, `${problems.join('\n')}\n${HOW_TO_UPDATE}`).toEqual([]);
  });
});
