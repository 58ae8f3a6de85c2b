import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { ToolIndex, toolTerms } from '../../src/toolsearch/index.js';
import { VOCABULARY } from '../../src/toolsearch/_vocabulary.js';
import { catalog } from './_catalogs.js';

const CATALOGS = [
  'github',
  'server-filesystem',
  'server-memory',
  'server-puppeteer',
  'cloudflare-radar',
  'cloudflare-browser',
  'cloudflare-docs',
  'mcp-server-fetch',
  'server-github',
];

const names = (index: ToolIndex, query: string, limit = 5): string[] => index.search(query, { limit }).map((match) => match.name);

describe('the vocabulary data', () => {
  it('is broad, frozen and made of lowercase words and short phrases', () => {
    const concepts = Object.keys(VOCABULARY);
    const everyday = Object.values(VOCABULARY).flat();
    expect(concepts.length).toBeGreaterThanOrEqual(150);
    expect(everyday.length).toBeGreaterThanOrEqual(800);
    expect(Object.isFrozen(VOCABULARY)).toBe(true);
    for (const [concept, words] of Object.entries(VOCABULARY)) {
      expect(Object.isFrozen(words), concept).toBe(true);
      for (const phrase of words) {
        expect(phrase, `${concept}: ${phrase}`).toBe(phrase.toLowerCase());
        expect(toolTerms(phrase).length, `${concept}: "${phrase}" has 1 to 5 words`).toBeGreaterThanOrEqual(1);
        expect(toolTerms(phrase).length, `${concept}: "${phrase}" has 1 to 5 words`).toBeLessThanOrEqual(5);
        expect(phrase, `${concept} lists itself`).not.toBe(concept);
      }
    }
  });

  // Each concept as a catalog of its own: every everyday word or phrase must lead to its
  // concept's tool, so no entry is dead (a lone stop word, a word the normalizer cannot meet).
  it('brings every everyday word and phrase to its concept', () => {
    const dead: string[] = [];
    for (const [concept, words] of Object.entries(VOCABULARY)) {
      const index = new ToolIndex([{ name: concept.replaceAll(' ', '_') }], { minScore: 0 });
      for (const phrase of words) if (index.search(phrase).length === 0) dead.push(`${concept} ← "${phrase}"`);
    }
    expect(dead).toEqual([]);
  });
});

describe('the vocabulary bridge in search', () => {
  const tracker = new ToolIndex([
    { name: 'create_issue', description: 'Create a new issue in a repository.' },
    { name: 'list_notifications', description: 'List notifications for the authenticated user.' },
    { name: 'approve_review', description: 'Approve a pull request review.' },
    { name: 'get_team_members', description: 'Get the members of a team.' },
    { name: 'create_gist', description: 'Create a new gist.' },
    { name: 'sign_commit', description: 'Sign a commit with a GPG key.' },
  ]);

  it('finds a tool by the everyday words for its concept', () => {
    expect(names(tracker, 'what is in my inbox')[0]).toBe('list_notifications');
    expect(names(tracker, 'who is in the design group')[0]).toBe('get_team_members');
    expect(names(tracker, 'a paste with this code')[0]).toBe('create_gist');
    expect(names(tracker, 'new ticket')[0]).toBe('create_issue');
  });

  it('matches a phrase only as a phrase, in order', () => {
    expect(names(tracker, 'sign off on it')[0]).toBe('approve_review');
    // The same words apart, or reversed, are not the idiom: the typed "sign" decides.
    expect(names(tracker, 'sign it, off we go')).not.toContain('approve_review');
    expect(names(tracker, 'off sign')).not.toContain('approve_review');
    expect(names(tracker, 'sign the commit')[0]).toBe('sign_commit');
  });

  it('weighs a phrase more than a single word', () => {
    // "bug report" (a phrase) stands for issue, "lgtm" (a word) for approve; with equal weights
    // the tie would go to approve_review by name.
    const index = new ToolIndex([{ name: 'approve' }, { name: 'issue' }], { minScore: 0 });
    expect(names(index, 'lgtm bug report')).toEqual(['issue', 'approve']);
  });

  it('never outweighs the words typed', () => {
    // "inbox" stands for notification; at equal weight the tie would go to alpha by name.
    const index = new ToolIndex([
      { name: 'alpha', description: 'Notifications.' },
      { name: 'beta', description: 'Inbox.' },
    ]);
    expect(names(index, 'inbox')[0]).toBe('beta');
  });

  it('changes nothing for a query that names a tool in the catalog\u2019s words', () => {
    for (const name of CATALOGS) {
      const tools = catalog(name);
      const bridged = new ToolIndex(tools);
      const plain = new ToolIndex(tools, { vocabulary: false });
      for (const tool of tools) {
        const query = toolTerms(tool.name).join(' ');
        expect(bridged.search(query, { limit: 5 }), `${name}: ${query}`).toEqual(plain.search(query, { limit: 5 }));
      }
    }
  });

  it('keeps the no-match floor for requests no tool serves', () => {
    const unrelated = [
      'bake a chocolate cake',
      'translate this into French',
      'what is the weather in Paris tomorrow',
      'book a flight to Tokyo',
      'play some jazz music',
      'how many calories are in a banana',
      'recommend a good novel',
    ];
    for (const name of CATALOGS) {
      const tools = catalog(name);
      const bridged = new ToolIndex(tools);
      const plain = new ToolIndex(tools, { vocabulary: false });
      for (const query of unrelated) expect(bridged.search(query), `${name}: ${query}`).toEqual(plain.search(query));
      expect(bridged.search('bake a chocolate cake'), name).toEqual([]);
    }
  });

  it('can be turned off, and refuses a vocabulary option that is not a boolean', () => {
    const plain = new ToolIndex([{ name: 'list_notifications' }], { vocabulary: false });
    expect(plain.search('inbox')).toEqual([]);
    let caught: unknown;
    try {
      new ToolIndex([], { vocabulary: 'yes' as unknown as boolean });
    } catch (error) {
      caught = error;
    }
    expect(isMcpctxError(caught, 'INVALID_ARGUMENT'), String(caught)).toBe(true);
  });

  it('counts only the words typed against the query-size cap', () => {
    // 60 distinct everyday words: under the cap of 64 as typed, far over it once bridged.
    const words = [...new Set(Object.values(VOCABULARY).flat().filter((phrase) => /^[a-z]{5,}$/.test(phrase)))].slice(0, 60);
    expect(words).toHaveLength(60);
    expect(() => tracker.search(words.join(' '))).not.toThrow();
  });
});
