import { describe, expect, it } from 'vitest';
import { ToolIndex, toolTerms } from '../../src/toolsearch/index.js';

describe('toolTerms', () => {
  it.each([
    ['list_pull_requests', ['list', 'pull', 'requests']],
    ['getFileContents', ['get', 'file', 'contents']],
    ['GetFileContents', ['get', 'file', 'contents']],
    ['HTMLParser', ['html', 'parser']],
    ['get-job-logs', ['get', 'job', 'logs']],
    ['repo.owner/name', ['repo', 'owner', 'name']],
    ['o200k_base sha256Hex v2', ['o200k', 'base', 'sha256', 'hex', 'v2']],
    ['listPRs URLsFor', ['list', 'prs', 'urls', 'for']],
    ['Read  the FILE, then: stop!', ['read', 'the', 'file', 'then', 'stop']],
    ['créer_fichier ÉtatCourant', ['créer', 'fichier', 'état', 'courant']],
    ['', []],
    ['__--..//  ', []],
  ])('%j → %j', (text, terms) => {
    expect(toolTerms(text)).toEqual(terms);
  });
});

// The normalization after toolTerms is private; its effect is what a search finds.
describe('word normalization, seen through search', () => {
  const index = new ToolIndex(
    [
      { name: 'create_widget', description: 'Create a widget.' },
      { name: 'delete_widget', description: 'Delete a widget.' },
      { name: 'list_repositories', description: 'List repositories.' },
      { name: 'open_pull_request', description: 'Open a pull request.' },
      { name: 'evaluate', description: 'Run JavaScript in the page.' },
      { name: 'add_reaction', description: 'Add an emoji reaction.' },
      { name: 'close_ticket', description: 'Close a ticket.' },
    ],
    { minScore: 0 },
  );
  const top = (query: string): string | undefined => index.search(query, { limit: 1 })[0]?.name;

  it('meets inflections of one word: plural, -ed, -ing, -ies', () => {
    expect(top('widgets were created')).toBe('create_widget');
    expect(top('creating widgets')).toBe('create_widget');
    expect(top('repository')).toBe('list_repositories');
    // Too short to meet by prefix: only stemming (-ing, then the final -e of `close`) joins them.
    expect(top('closing')).toBe('close_ticket');
  });

  it('expands abbreviations on both sides: PR, repo', () => {
    expect(top('PRs')).toBe('open_pull_request');
    expect(top('my repos')).toBe('list_repositories');
  });

  it('finds a mixed-case prose word typed as one word', () => {
    expect(top('javascript')).toBe('evaluate');
  });

  it('matches a longer word by its beginning: react → reaction', () => {
    expect(top('react')).toBe('add_reaction');
  });

  it('gives a query verb its catalog synonym: remove → delete', () => {
    expect(top('remove the widget')).toBe('delete_widget');
  });

  it('ignores stop words: a query of only stop words finds nothing', () => {
    expect(index.search('what is the a of this')).toEqual([]);
  });
});
