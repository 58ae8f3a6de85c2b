// Every error code is documented where it is declared (DESIGN.md, "Examples to follow"): what it
// means and what its `data` carries, so a caller can switch on it without reading the throw sites.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';

const FILE = fileURLToPath(new URL('../../src/errors/index.ts', import.meta.url));

/** Each member of the McpctxErrorCode union with the doc comment written just before it. */
function documentedCodes(): Array<{ code: string; doc: string }> {
  const text = readFileSync(FILE, 'utf8');
  const source = ts.createSourceFile(FILE, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const alias = source.statements.find((statement): statement is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(statement) && statement.name.text === 'McpctxErrorCode');
  if (!alias || !ts.isUnionTypeNode(alias.type)) throw new Error('McpctxErrorCode is not a union in src/errors/index.ts');
  let previousEnd = alias.type.getFullStart();
  return alias.type.types.map((member) => {
    const code = ts.isLiteralTypeNode(member) && ts.isStringLiteral(member.literal) ? member.literal.text : member.getText(source);
    // The comment sits before the member's `|`: whatever lies between the previous member and this one.
    const between = text.slice(previousEnd, member.getStart(source));
    previousEnd = member.getEnd();
    const doc = between.match(/\/\*\*[\s\S]*?\*\//g)?.join('\n') ?? '';
    return { code, doc };
  });
}

describe('McpctxErrorCode', () => {
  it('documents every code: what it means and what its data carries', () => {
    const codes = documentedCodes();
    expect(codes.length).toBeGreaterThan(30);
    const undocumented = codes.filter(({ doc }) => !/\bdata: /.test(doc)).map(({ code }) => code);
    expect(undocumented).toEqual([]);
  });

  it('checks data against its code at the throw site (`npm run typecheck` fails if a line below compiles)', () => {
    // @ts-expect-error -- SPAWN_FAILED has no key `comand`
    const typo = new McpctxError('SPAWN_FAILED', 'could not start', { comand: 'server' });
    // @ts-expect-error -- DEADLINE's budgetMs is a number of milliseconds
    const wrongType = new McpctxError('DEADLINE', 'too slow', { budgetMs: '5000' });
    const right = new McpctxError('DEADLINE', 'too slow', { budgetMs: 5000, label: 'measurement' });
    expect([typo.code, wrongType.code, right.data.budgetMs]).toEqual(['SPAWN_FAILED', 'DEADLINE', 5000]);
    expect(right).toBeInstanceOf(McpctxError);
    expect(right.name).toBe('McpctxError');
  });
});
