// The config folder sits low in the import graph (DESIGN.md: imports flow one way): gateway,
// audit and experiment import it, and it imports only errors, json, tokens, lazy (which loads its two
// parsers at their first use) and the two parsers. No Node built-in either, so the pure entries
// that may one day read config text stay pure.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const FOLDER = fileURLToPath(new URL('../../src/config/', import.meta.url));
const ALLOWED = /^(?:jsonc-parser|yaml|\.\.\/errors\/index\.js|\.\.\/tokens\/index\.js|\.\.\/lazy\/index\.js|\.\.\/json\/index\.js|\.\/_[a-z-]+\.js)$/;

/** Every module specifier a file names in an import or export, type-only ones included. */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && ['require', 'lazyRequire'].includes(node.expression.text)))) {
      const [first] = node.arguments;
      found.push(first !== undefined && ts.isStringLiteralLike(first) ? first.text : (first?.getText(source) ?? '(dynamic)'));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('src/config imports', () => {
  const files = readdirSync(FOLDER).filter((name) => name.endsWith('.ts'));

  it('has its surface and private files', () => {
    expect(files).toContain('index.ts');
    expect(files.length).toBeGreaterThan(1);
  });

  it.each(files)('%s imports only errors, json, tokens, lazy, jsonc-parser, yaml and its own folder', (name) => {
    const outside = specifiers(`${FOLDER}${name}`).filter((specifier) => !ALLOWED.test(specifier));
    expect(outside).toEqual([]);
  });
});
