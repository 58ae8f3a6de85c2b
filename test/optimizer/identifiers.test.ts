import { describe, expect, it } from 'vitest';
import { splitConstraints } from '../../src/optimizer/_constraints.js';
import { ContextOptimizer, type ContextResult } from '../../src/optimizer/index.js';
import { importedStems, stemOf } from '../../src/optimizer/_identifiers.js';

describe('module stems and imports', () => {
  it('names a module the same way in every spelling', () => {
    expect(stemOf('./src/money/convert.ts')).toBe('src/money/convert');
    expect(stemOf('C:\\proj\\src\\money\\convert.ts')).toBe('proj/src/money/convert');
    expect(stemOf('/home/dev/app/src/money/convert.js:12:5')).toBe('home/dev/app/src/money/convert');
  });

  it('resolves relative JS imports against the file, and Python imports by module, skipping packages', () => {
    const ts = "import { a } from '../money/convert.js';\nimport z from 'zod';\nconst b = require('./local');\nimport type { T } from './types.js';";
    expect(importedStems('src/pricing/total.ts', ts)).toEqual(['src/money/convert', 'src/pricing/local', 'src/pricing/types']);
    const py = 'from marshmallow.utils import timedelta_to_microseconds\nfrom .base import Field\nimport os.path\n';
    expect(importedStems('src/marshmallow/fields.py', py)).toEqual(['marshmallow/utils', 'src/marshmallow/base', 'os/path']);
  });

  it('finds imports after blank lines and under any indentation within the line', () => {
    const ts = "\n\n   \n\u00a0import './a.js';\n\t\timport './b.js';\n\n\nimport '../c.js';";
    expect(importedStems('src/x/y.ts', ts)).toEqual(['src/x/a', 'src/x/b', 'src/c']);
    const py = '\n\n  \n\u00a0from ..pkg.mod import a\n\tfrom . import b\n\n    import os.path\nfrom ...deep import c\n';
    expect(importedStems('src/app/models/m.py', py)).toEqual(['src/app/pkg/mod', 'os/path', 'src/deep']);
  });

  it('reads 4 MiB of newlines, of line separators and a 4 MiB run of dots in one pass (the old patterns took hours)', () => {
    const size = 4 * 1024 * 1024;
    for (const path of ['src/a.ts', 'src/a.py']) {
      expect(importedStems(path, '\n'.repeat(size))).toEqual([]);
      expect(importedStems(path, '\u2028'.repeat(size))).toEqual([]);
      expect(importedStems(path, ' \n'.repeat(size / 2))).toEqual([]);
    }
    expect(importedStems('src/a.py', `from ${'.'.repeat(size)}x`)).toEqual([]);
    expect(importedStems('src/a.py', `from ${'.'.repeat(size)}x import y`)).toEqual(['x']);
  });
});

describe('related modules', () => {
  it('follows a failing test to its module and then its imports, with fewer points each hop', () => {
    const result = new ContextOptimizer().buildContext({
      task: 'The order total is one cent short; fix the rounding',
      toolOutputs: [{ id: 'test', command: 'npx vitest run', exitCode: 1, output: 'FAIL src/pricing/total.test.ts > rounds half-up\nAssertionError: expected 4757 to be 4758' }],
      files: [
        { id: 'total', path: 'src/pricing/total.ts', content: "import { toMinor } from '../money/convert.js';\nexport const total = (xs: number[]) => xs.reduce((a, b) => a + toMinor(b), 0);" },
        { id: 'convert', path: 'src/money/convert.ts', content: "import { MODE } from '../config/defaults.js';\nexport const toMinor = (x: number) => Math[MODE](x * 100);" },
        { id: 'defaults', path: 'src/config/defaults.ts', content: "export const MODE = 'floor';" },
        { id: 'unrelated', path: 'src/ui/theme.ts', content: "export const colour = 'teal';" },
      ],
      tokenBudget: 2_000,
    });
    const identifier = Object.fromEntries(result.sources.map((s) => [s.recordId, s.signals.identifier.value]));
    expect(identifier).toMatchObject({ total: 0.75, convert: 0.5625, defaults: 0.4219 });
    expect(identifier.unrelated).toBeUndefined();
    expect(result.report.related).toContainEqual({ stem: 'src/config/defaults', hops: 3 });
  });
});

describe('changes the task names', () => {
  const statOf = (title: string, files: string[]): string =>
    [`commit 9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d`, '', `    ${title}`, '', ...files.map((file) => ` ${file.padEnd(28)} |  4 ++--`)].join('\n');
  const identifierOf = (result: ContextResult): Record<string, number> =>
    Object.fromEntries(result.sources.map((source) => [source.recordId, source.signals.identifier.value]));

  it('a fragment naming the change (#512) is on the task, and the files it touched are one hop away', () => {
    const result = new ContextOptimizer().buildContext({
      task: 'The build fails since #512',
      toolOutputs: [
        { id: 'show-512', command: 'git show --stat HEAD', output: statOf('Move resolvers to generated types (#512)', ['package.json', 'codegen.ts']) },
        { id: 'show-5120', command: 'git show --stat HEAD~1', output: statOf('Unrelated (#5120)', ['src/theme.ts']) },
        { id: 'package', command: 'cat package.json', output: '{ "scripts": { "codegen": "graphql-codegen" } }' },
        { id: 'theme', command: 'cat src/theme.ts', output: "export const colour = 'teal';" },
      ],
      tokenBudget: 2_000,
    });
    const identifier = identifierOf(result);
    expect(identifier['show-512']).toBe(0.8);
    expect(identifier.package).toBe(0.75);
    expect(identifier['show-5120'] ?? 0).toBe(0);
    expect(identifier.theme ?? 0).toBe(0);
    expect(result.report.related).toContainEqual({ stem: 'package', hops: 1 });
    expect(result.report.task.references).toEqual(['#512']);
  });

  it('an abbreviated commit hash in the task matches the full hash, and only at a word start', () => {
    const result = new ContextOptimizer().buildContext({
      task: 'Revert 9c1d2e3 if it broke the importer',
      toolOutputs: [
        { id: 'full', command: 'git log -1', output: statOf('Importer: stream rows', ['src/importer.ts']) },
        { id: 'inside', command: 'echo', output: 'build id x9c1d2e3f' },
      ],
      tokenBudget: 2_000,
    });
    const identifier = identifierOf(result);
    expect(identifier.full).toBe(0.8);
    expect(identifier.inside ?? 0).toBe(0);
  });

  it('a file named by a task word is on the task, however short the word (CI and ci.yml)', () => {
    const result = new ContextOptimizer().buildContext({
      task: 'Get CI green again',
      files: [{ id: 'workflow', path: '.github/workflows/ci.yml', content: 'jobs:\n  build:\n    steps:\n      - run: npm run build' }],
      tokenBudget: 2_000,
    });
    expect(identifierOf(result).workflow).toBe(0.6);
  });
});

describe('constraints', () => {
  it('a long message makes only its requirement sentences mandatory, once each; a short one stays whole', () => {
    const filler = Array.from({ length: 30 }, (_, i) => `Background paragraph ${i} about the deployment history of the service and its many dashboards.`).join('\n\n');
    const result = new ContextOptimizer().buildContext({
      task: 'Add retries to the payment client',
      messages: [
        { id: 'long', role: 'system', text: `${filler}\n\nYou must never retry a POST without an idempotency key.\n\n${filler}` },
        { id: 'again', role: 'user', text: `${filler}\n\nYou must never retry a POST without an idempotency key.\n\n${filler}` },
        { id: 'short', role: 'user', text: 'Ground rules:\n- Keep the SDK on version 17.\n- Retries must not exceed 3.' },
      ],
      tokenBudget: 400,
    });
    const mandatory = result.sources.filter((s) => s.mandatory);
    expect(mandatory.filter((s) => s.fragmentId.startsWith('again#'))).toHaveLength(1);
    expect(mandatory.filter((s) => s.fragmentId.startsWith('long#'))).toHaveLength(0);
    expect(mandatory.find((s) => s.recordId === 'short')?.fragmentId).toBe('short#1');
    expect(result.context).toContain('- Keep the SDK on version 17.');
    expect(result.context).toContain('You must never retry a POST without an idempotency key.');
    expect(result.stats.tokensOut).toBeLessThanOrEqual(400);
  });

  it('splitConstraints leaves fragments without a constraint untouched', () => {
    expect(splitConstraints([])).toEqual([]);
  });
});
