// Issue 31, item 2: rules named tools by the name the client sees, which changes with the number
// of running upstreams (`fs__write_file` with two, `write_file` with one or with the other
// disabled), so `deny` and per-tool rules silently stopped matching. One matcher now reads every
// rule as an upstream and a tool by its own name; these check it without a process.
import { describe, expect, it } from 'vitest';
import {
  type GatewayConfig,
  configRules,
  isToolAllowed,
  matchRules,
  parseGatewayConfig,
  parseToolSelector,
  toolRulesFor,
  visibleToolName,
} from '../../src/gateway/config/index.js';

const naming = { separator: '__', servers: ['fs', 'gh', 'git__hub'] };

/** The same rules under three server layouts: one server, two, and two with gh disabled. */
function layouts(rules: string): Record<string, GatewayConfig> {
  return {
    one: parseGatewayConfig(`mcpServers:\n  fs: { command: x }\n${rules}`),
    two: parseGatewayConfig(`mcpServers:\n  fs: { command: x }\n  gh: { command: y }\n${rules}`),
    disabled: parseGatewayConfig(`mcpServers:\n  fs: { command: x }\n  gh: { command: y, disabled: true }\n${rules}`),
  };
}

const allowed = (config: GatewayConfig, upstream: string, own: string): boolean => isToolAllowed(config, upstream, own, visibleToolName(config, upstream, own));

describe('a rule key names an upstream and a tool', () => {
  it('reads SERVER/tool, SERVER<separator>tool (a configured server, disabled ones too) and bare names, with their rank', () => {
    expect(parseToolSelector('fs/write_file', naming)).toMatchObject({ upstream: 'fs', tool: 'write_file', rank: 'upstream-exact' });
    expect(parseToolSelector('fs__write_file', naming)).toMatchObject({ upstream: 'fs', tool: 'write_file', rank: 'upstream-exact' });
    // The longest server prefix: a server whose name holds the separator.
    expect(parseToolSelector('git__hub__list', naming)).toMatchObject({ upstream: 'git__hub', tool: 'list', rank: 'upstream-exact' });
    expect(parseToolSelector('fs/write_*', naming)).toMatchObject({ upstream: 'fs', tool: 'write_*', rank: 'upstream-glob' });
    expect(parseToolSelector('*__delete_*', naming)).toMatchObject({ upstream: '*', tool: 'delete_*', rank: 'upstream-glob' });
    expect(parseToolSelector('g*/list', naming)).toMatchObject({ upstream: 'g*', tool: 'list', rank: 'upstream-glob' });
    expect(parseToolSelector('write_file', naming)).toMatchObject({ upstream: null, tool: 'write_file', rank: 'bare-exact' });
    // A prefix that is no configured server leaves the name bare.
    expect(parseToolSelector('list__prs', naming)).toMatchObject({ upstream: null, tool: 'list__prs', rank: 'bare-exact' });
    expect(parseToolSelector('*delete*', naming)).toMatchObject({ upstream: null, tool: '*delete*', rank: 'bare-glob' });
    expect(parseToolSelector('zz/x', naming)).toEqual({ problem: '"zz" names no configured server; servers: fs, gh, git__hub' });
    expect(parseToolSelector('z*/x', naming)).toEqual({ problem: '"z*" matches no configured server; servers: fs, gh, git__hub' });
    expect(parseToolSelector('fs__', naming)).toEqual({ problem: 'needs a tool name after fs__' });
    expect(parseToolSelector('/x', naming)).toMatchObject({ problem: expect.stringMatching(/both a server and a tool/) });
  });
});

describe('a rule matches the same tools whatever the number of running upstreams', () => {
  for (const deny of ['write_file', 'fs__write_file', 'fs/write_file', '"fs/write_*"', '"*__write_file"']) {
    it(`deny: [${deny}] denies fs's write_file with one server, two, and two with one disabled`, () => {
      for (const [layout, config] of Object.entries(layouts(`deny: [${deny}]\n`))) {
        expect({ layout, allowed: allowed(config, 'fs', 'write_file') }).toEqual({ layout, allowed: false });
        expect({ layout, allowed: allowed(config, 'fs', 'read_file') }).toEqual({ layout, allowed: true });
      }
    });
  }

  it("a bare deny covers every upstream's tool of that name; a qualified one only its upstream's", () => {
    const two = parseGatewayConfig('mcpServers:\n  fs: { command: x }\n  gh: { command: y }\ndeny: [write_file, gh/read_file]\n');
    expect(allowed(two, 'gh', 'write_file')).toBe(false);
    expect(allowed(two, 'fs', 'read_file')).toBe(true);
    expect(allowed(two, 'gh', 'read_file')).toBe(false);
  });

  it('allow: [fs__read_file] offers only that tool in every layout; folding still applies to the tool part only', () => {
    for (const [layout, config] of Object.entries(layouts('allow: [fs__read_file]\n'))) {
      expect({ layout, read: allowed(config, 'fs', 'read_file'), write: allowed(config, 'fs', 'write_file'), folded: allowed(config, 'fs', 'Read-File') }).toEqual({
        layout,
        read: true,
        write: false,
        folded: true,
      });
    }
    // The server part is matched as written: `gh__list_*` no longer covers a server named `ghl`'s `ist_x`.
    const config = parseGatewayConfig('mcpServers:\n  gh: { command: x }\n  ghl: { command: y }\nallow: ["gh__list_*"]\n');
    expect(allowed(config, 'gh', 'list_prs')).toBe(true);
    expect(allowed(config, 'ghl', 'ist_x')).toBe(false);
  });

  it('tools: keyed fs__read_file, fs/read_file or a bare read_file applies to fs\'s read_file in every layout', () => {
    for (const key of ['fs__read_file', 'fs/read_file', 'read_file', '"read_*"']) {
      for (const [layout, config] of Object.entries(layouts(`tools:\n  ${key}: { maxTokens: 900 }\n`))) {
        expect({ layout, key, rules: toolRulesFor(config, 'fs', 'read_file') }).toEqual({ layout, key, rules: { maxTokens: 900 } });
        expect({ layout, key, rules: toolRulesFor(config, 'fs', 'write_file') }).toEqual({ layout, key, rules: undefined });
      }
    }
  });

  it('search.pinned names tools by the same matcher', () => {
    for (const [layout, config] of Object.entries(layouts('search: { enabled: true, pinned: [fs__read_file, "*/list_*"] }\n'))) {
      const rules = configRules(config);
      expect({ layout, read: rules.isPinned('fs', 'read_file'), write: rules.isPinned('fs', 'write_file'), list: rules.isPinned('fs', 'list_dir') }).toEqual({
        layout,
        read: true,
        write: false,
        list: true,
      });
      // Pins match as written, not folded.
      expect(rules.isPinned('fs', 'Read_File')).toBe(false);
    }
  });
});

describe('several tools: keys on one tool', () => {
  it('each setting comes from the most specific key that sets it: upstream exact > upstream glob > bare exact > bare glob, then file order', () => {
    const config = parseGatewayConfig(`mcpServers:\n  fs: { command: x }\n  gh: { command: y }
tools:
  "*": { maxTokens: 1000, maxDescriptionTokens: 10, format: csv }
  "read_*": { maxTokens: 2000, format: toon }
  read_file: { maxTokens: 3000 }
  "fs/read_*": { maxTokens: 4000, pageTokens: 500 }
  "fs/*": { pageTokens: 600, dropOutputSchema: true }
  fs__read_file: { maxTokens: 5000 }
`);
    // "*" and "read_*" are both bare globs: the first in the file gives the format.
    expect(toolRulesFor(config, 'fs', 'read_file')).toEqual({ maxTokens: 5000, pageTokens: 500, dropOutputSchema: true, format: 'csv', maxDescriptionTokens: 10 });
    expect(toolRulesFor(config, 'gh', 'read_file')).toEqual({ maxTokens: 3000, format: 'csv', maxDescriptionTokens: 10 });
    expect(toolRulesFor(config, 'gh', 'list')).toEqual({ maxTokens: 1000, maxDescriptionTokens: 10, format: 'csv' });
  });
});

describe('matchRules: the rules against the tools listed', () => {
  const config = parseGatewayConfig(`mcpServers:\n  fs: { command: x }\n  gh: { command: y }\n  off: { command: z, disabled: true }
allow: { fs: ["*"], gh: [list_prs] }
deny: [write_flie, fs/write_file, "gh/*delete*", off/anything]
search: { enabled: true, pinned: [gh__list_prs, gh__lits_prs] }
tools:
  read_file: { maxTokens: 100 }
  off__read_file: { maxTokens: 100 }
`);
  const lists = [
    { upstream: 'fs', tools: ['read_file', 'write_file'] },
    { upstream: 'gh', tools: ['list_prs', 'delete_repo'] },
  ];

  it('says what each rule matched, warns about the ones that match nothing, and leaves rules for disabled or unlisted upstreams unchecked', () => {
    const matches = matchRules(config, lists);
    const byRule = Object.fromEntries(matches.rules.map((rule) => [rule.rule, [rule.status, ...rule.matched]]));
    expect(byRule).toEqual({
      'allow.fs[0]': ['matched', 'fs/read_file', 'fs/write_file'],
      'allow.gh[0]': ['matched', 'gh/list_prs'],
      'deny[0]': ['unmatched'],
      'deny[1]': ['matched', 'fs/write_file'],
      'deny[2]': ['matched', 'gh/delete_repo'],
      'deny[3]': ['unchecked'],
      'tools.read_file': ['matched', 'fs/read_file'],
      'tools.off__read_file': ['unchecked'],
      'search.pinned[0]': ['matched', 'gh/list_prs'],
      'search.pinned[1]': ['unmatched'],
    });
    expect(matches.warnings).toEqual(['deny[0] "write_flie" matches no tool of any upstream', 'search.pinned[1] "gh__lits_prs" matches no tool of gh']);
    expect(matches.upstreams).toEqual([
      {
        upstream: 'fs',
        tools: [
          { name: 'read_file', visibleName: 'fs__read_file', allowed: true, rules: ['allow.fs[0]', 'tools.read_file'] },
          { name: 'write_file', visibleName: 'fs__write_file', allowed: false, rules: ['allow.fs[0]', 'deny[1]'] },
        ],
      },
      {
        upstream: 'gh',
        tools: [
          { name: 'list_prs', visibleName: 'gh__list_prs', allowed: true, rules: ['allow.gh[0]', 'search.pinned[0]'] },
          { name: 'delete_repo', visibleName: 'gh__delete_repo', allowed: false, rules: ['deny[2]'] },
        ],
      },
    ]);
    // gh did not list: its own rules cannot be judged, a bare rule that matched nowhere cannot either.
    const onlyFs = matchRules(config, [lists[0]!]);
    expect(onlyFs.warnings).toEqual([]);
    expect(onlyFs.rules.find((rule) => rule.rule === 'deny[0]')).toMatchObject({ status: 'unchecked', unchecked: ['gh'] });
  });
});
