import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SearchableTool } from '../../src/toolsearch/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The 117 tools of github-mcp-server, one `.snap` file each, in file order. */
export function githubCatalog(): SearchableTool[] {
  const folder = `${FIXTURES}github-mcp-server-toolsnaps/`;
  return readdirSync(folder)
    .filter((file) => file.endsWith('.snap'))
    .sort()
    .map((file) => JSON.parse(readFileSync(folder + file, 'utf8')) as SearchableTool);
}

/** `github` or the base name of a test/fixtures/mcp-tool-catalogs/*.tools.json file. */
export function catalog(name: string): SearchableTool[] {
  if (name === 'github') return githubCatalog();
  const file = `${FIXTURES}mcp-tool-catalogs/${name}.tools.json`;
  return (JSON.parse(readFileSync(file, 'utf8')) as { tools: SearchableTool[] }).tools;
}
