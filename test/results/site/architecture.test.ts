// A record without isolation.arch (made before the field shipped) says "architecture not on record"
// on its server page, beside the isolation: never left out, never borrowed from another record.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { safeSegment } from '../../../src/measure/index.js';
import { buildSite } from '../../../src/results/site/index.js';
import { writeResultsFixture } from './fixture.js';

let work: string;
let results: string;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'mcpctx-site-arch-'));
  results = join(work, 'results');
  await writeResultsFixture(results);
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function dropArch(server: string): Promise<void> {
  const file = join(results, safeSegment(server), 'measurement.json');
  const record = JSON.parse(await readFile(file, 'utf8')) as { isolation: Record<string, unknown> };
  delete record.isolation.arch;
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
}

const isolationOf = (html: string): string => /<dt>Isolation<\/dt><dd>(.*?)<\/dd>/.exec(html)?.[1] ?? '';

describe('a record without isolation.arch', () => {
  it('says architecture not on record on its page; its neighbours keep their own', async () => {
    await dropArch('alpha');
    await buildSite({ resultsDir: results, outDir: join(work, 'site') });
    const alpha = await readFile(join(work, 'site', 'servers', 'alpha.html'), 'utf8');
    const beta = await readFile(join(work, 'site', 'servers', 'beta-remote.html'), 'utf8');
    expect(isolationOf(alpha)).toBe('host <span class="muted">(linux, architecture not on record, node 20.19.0)</span>');
    expect(isolationOf(beta)).toBe('docker <span class="muted">(linux, x64, node 20.19.0)</span>');
  });

  it('says it even when nothing else about the machine is on record', async () => {
    const file = join(results, 'alpha', 'measurement.json');
    const record = JSON.parse(await readFile(file, 'utf8')) as { isolation: Record<string, unknown> };
    record.isolation = { mode: 'minimal-env' };
    await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
    await buildSite({ resultsDir: results, outDir: join(work, 'site') });
    const alpha = await readFile(join(work, 'site', 'servers', 'alpha.html'), 'utf8');
    expect(isolationOf(alpha)).toBe('<span class="muted">not recorded</span> <span class="muted">(architecture not on record)</span>');
  });
});
