import { describe, expect, it } from 'vitest';
import { CLAUDE_DIVERGENCE_BAND, DEFAULT_CONTEXT_WINDOW, deferralPosture, matchesServerRule, thresholdVerdict } from '../../src/audit/_deferral.js';
import type { ConfigEntry, DeferralPosture, EnvSetting, ServerRule, SettingsSource, SettingsTier } from '../../src/audit/_types.js';
import { isMcpctxError } from '../../src/errors/index.js';

const CANARY = 'canary-7f3a9c-secret';

const PATHS: Record<SettingsTier, string> = {
  managed: '/etc/claude-code/managed-settings.json',
  'managed-drop-in': '/etc/claude-code/managed-settings.d/10-org.json',
  local: '/work/p/.claude/settings.local.json',
  project: '/work/p/.claude/settings.json',
  user: '/home/u/.claude/settings.json',
};

/** A read settings file whose env block holds these JSON values (strings readable, anything else not). */
function file(tier: SettingsTier, env: Record<string, unknown>, path = PATHS[tier]): SettingsSource {
  const settings: Record<string, EnvSetting> = {};
  for (const [name, value] of Object.entries(env)) {
    settings[name] = typeof value === 'string' ? { kind: 'string', value } : { kind: 'unreadable', jsonType: value === null ? 'null' : typeof value };
  }
  return { path, tier, state: { state: 'read' }, env: settings };
}

function blind(tier: SettingsTier, path = PATHS[tier]): SettingsSource {
  return { path, tier, state: { state: 'unreadable', why: 'JSON parse error: ValueExpected', line: 3, column: 1 }, env: {} };
}

function absent(tier: SettingsTier, path = PATHS[tier]): SettingsSource {
  return { path, tier, state: { state: 'absent' }, env: {} };
}

const BETAS = 'CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS';
const TOOL_SEARCH = 'ENABLE_TOOL_SEARCH';
const BASE_URL = 'ANTHROPIC_BASE_URL';

interface Row {
  name: string;
  shell?: Record<string, string | undefined>;
  settings?: SettingsSource[];
  /** `up-front`, `deferred`, `deferred@N` (threshold N%), or `refused:<refusal>`. */
  expect: string;
  /** Evidence expected to be among the result's, as variable@source=value (`=` omitted when absent). */
  evidence?: string[];
}

function summary(posture: DeferralPosture): string {
  if (posture.posture === 'refused') return `refused:${posture.refusal}`;
  if (posture.posture === 'deferred' && posture.thresholdPercent !== undefined) return `deferred@${posture.thresholdPercent}`;
  return posture.posture;
}

function evidenceLines(posture: DeferralPosture): string[] {
  return posture.evidence.map((item) => `${item.variable}@${item.source}${item.value === undefined ? '' : `=${item.value}`}`);
}

const ROWS: Row[] = [
  { name: 'nothing set anywhere: the documented default', settings: [absent('managed'), absent('local'), absent('project'), absent('user')], expect: 'deferred', evidence: [] },

  // 1. CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS
  ...['1', 'true', 'TRUE', 'Yes', 'on', 'ON'].map((value): Row => ({ name: `betas ${value}: tool search off`, shell: { [BETAS]: value }, expect: 'up-front', evidence: [`${BETAS}@shell=${value}`] })),
  ...['0', 'FALSE', 'off', 'No'].map((value): Row => ({ name: `betas ${value} decides nothing and the read continues to ENABLE_TOOL_SEARCH`, shell: { [BETAS]: value, [TOOL_SEARCH]: 'auto:5' }, expect: 'deferred@5', evidence: [`${BETAS}@shell=${value}`, `${TOOL_SEARCH}@shell=auto:5`] })),
  { name: 'betas 0 with nothing else set: the default', shell: { [BETAS]: '0' }, expect: 'deferred' },
  { name: 'betas 0 continues to ENABLE_TOOL_SEARCH=false', shell: { [BETAS]: '0', [TOOL_SEARCH]: 'false' }, expect: 'up-front' },
  { name: 'betas maybe: unrecognized', shell: { [BETAS]: 'maybe' }, expect: 'refused:unrecognized-value', evidence: [`${BETAS}@shell=maybe`] },
  { name: 'betas empty string: unrecognized', shell: { [BETAS]: '' }, expect: 'refused:unrecognized-value' },
  { name: 'betas on beats ENABLE_TOOL_SEARCH=true', shell: { [BETAS]: 'on', [TOOL_SEARCH]: 'true' }, expect: 'up-front' },

  // 2. ENABLE_TOOL_SEARCH
  { name: 'tool search true: deferred at any size', shell: { [TOOL_SEARCH]: 'true' }, expect: 'deferred', evidence: [`${TOOL_SEARCH}@shell=true`] },
  { name: 'tool search false: up front', shell: { [TOOL_SEARCH]: 'false' }, expect: 'up-front' },
  { name: 'tool search auto: 10%', shell: { [TOOL_SEARCH]: 'auto' }, expect: 'deferred@10' },
  { name: 'tool search auto:5', shell: { [TOOL_SEARCH]: 'auto:5' }, expect: 'deferred@5' },
  { name: 'tool search auto:0', shell: { [TOOL_SEARCH]: 'auto:0' }, expect: 'deferred@0' },
  { name: 'tool search auto:100', shell: { [TOOL_SEARCH]: 'auto:100' }, expect: 'deferred@100' },
  ...['auto:101', 'auto:x', 'auto:', 'auto:5.5', 'auto:-1', 'maybe', 'TRUE', ''].map((value): Row => ({ name: `tool search ${JSON.stringify(value)}: unrecognized`, shell: { [TOOL_SEARCH]: value }, expect: 'refused:unrecognized-value', evidence: [`${TOOL_SEARCH}@shell=${value}`] })),

  // Unreadable values: a JSON false is not the false row.
  { name: 'JSON false for ENABLE_TOOL_SEARCH in a settings file: unreadable value', settings: [file('user', { [TOOL_SEARCH]: false })], expect: 'refused:unreadable-value', evidence: [`${TOOL_SEARCH}@${PATHS.user}`] },
  { name: 'JSON true for betas: unreadable value', settings: [file('project', { [BETAS]: true })], expect: 'refused:unreadable-value' },
  { name: 'JSON number for ENABLE_TOOL_SEARCH: unreadable value', settings: [file('local', { [TOOL_SEARCH]: 1 })], expect: 'refused:unreadable-value' },
  { name: 'a readable value above an unreadable one is the value in force', settings: [file('local', { [TOOL_SEARCH]: 'auto' }), file('user', { [TOOL_SEARCH]: false })], expect: 'deferred@10' },
  { name: 'an unreadable ENABLE_TOOL_SEARCH does not spoil betas on', settings: [file('project', { [BETAS]: '1' }), file('user', { [TOOL_SEARCH]: null })], expect: 'up-front' },
  { name: 'an unreadable ANTHROPIC_BASE_URL does not spoil a set ENABLE_TOOL_SEARCH', settings: [file('user', { [TOOL_SEARCH]: 'true', [BASE_URL]: 42 })], expect: 'deferred' },
  { name: 'an unreadable ANTHROPIC_BASE_URL decides while ENABLE_TOOL_SEARCH is unset', settings: [file('user', { [BASE_URL]: 42 })], expect: 'refused:unreadable-value' },

  // The managed pair is one source.
  { name: 'managed and a drop-in disagree on ENABLE_TOOL_SEARCH: conflict', settings: [file('managed', { [TOOL_SEARCH]: 'true' }), file('managed-drop-in', { [TOOL_SEARCH]: 'false' })], expect: 'refused:conflict', evidence: [`${TOOL_SEARCH}@${PATHS.managed}=true`, `${TOOL_SEARCH}@${PATHS['managed-drop-in']}=false`] },
  { name: 'managed and a drop-in agree: decided', settings: [file('managed', { [TOOL_SEARCH]: 'false' }), file('managed-drop-in', { [TOOL_SEARCH]: 'false' }), file('user', { [TOOL_SEARCH]: 'true' })], expect: 'up-front' },
  { name: 'two drop-ins disagree on betas: conflict', settings: [absent('managed'), file('managed-drop-in', { [BETAS]: '1' }, '/m.d/a.json'), file('managed-drop-in', { [BETAS]: '0' }, '/m.d/b.json')], expect: 'refused:conflict' },
  { name: 'managed pair disagreeing on ANTHROPIC_BASE_URL does not spoil a set ENABLE_TOOL_SEARCH', settings: [file('managed', { [BASE_URL]: 'https://a.example' }), file('managed-drop-in', { [BASE_URL]: 'https://b.example' }), file('user', { [TOOL_SEARCH]: 'auto' })], expect: 'deferred@10' },
  { name: 'a drop-in with a non-string value beside a string one: unreadable value', settings: [file('managed', { [TOOL_SEARCH]: 'true' }), file('managed-drop-in', { [TOOL_SEARCH]: true })], expect: 'refused:unreadable-value' },

  // Unreadable settings files: they spoil only a variable they could decide.
  { name: 'unreadable user settings above the shell that sets ENABLE_TOOL_SEARCH: refused', shell: { [TOOL_SEARCH]: 'false' }, settings: [absent('managed'), absent('project'), blind('user')], expect: 'refused:unreadable-settings', evidence: [`${BETAS}@${PATHS.user}`] },
  { name: 'unreadable user settings below the project file that decides: answered', settings: [absent('managed'), file('project', { [BETAS]: '0', [TOOL_SEARCH]: 'false' }), blind('user')], expect: 'up-front' },
  { name: 'unreadable user settings below betas on in the local file: answered', settings: [file('local', { [BETAS]: 'true' }), blind('user')], expect: 'up-front' },
  { name: 'unreadable managed file: refused (it could set the variable read first)', shell: { [BETAS]: '1' }, settings: [blind('managed'), file('user', { [TOOL_SEARCH]: 'true' })], expect: 'refused:unreadable-settings' },
  { name: 'unreadable drop-in beside a managed file that sets the variable: refused', settings: [file('managed', { [BETAS]: '1' }), blind('managed-drop-in')], expect: 'refused:unreadable-settings' },
  { name: 'unreadable project file with nothing set above: refused', settings: [absent('managed'), absent('local'), blind('project'), file('user', { [TOOL_SEARCH]: 'false' })], expect: 'refused:unreadable-settings' },

  // 3. ANTHROPIC_BASE_URL
  { name: 'base URL on another host with tool search unset: up front, host only', shell: { [BASE_URL]: `https://user:${CANARY}@gateway.example.com:8443/v1?key=${CANARY}` }, expect: 'up-front', evidence: [`${BASE_URL}@shell=gateway.example.com`] },
  { name: 'base URL api.anthropic.com: the default', shell: { [BASE_URL]: 'https://api.anthropic.com' }, expect: 'deferred', evidence: [`${BASE_URL}@shell=api.anthropic.com`] },
  { name: 'base URL that does not parse: up front, no value shown', shell: { [BASE_URL]: `not a url ${CANARY}` }, expect: 'up-front', evidence: [`${BASE_URL}@shell`] },
  { name: 'base URL on another host while ENABLE_TOOL_SEARCH is set: not consulted', shell: { [BASE_URL]: 'https://gateway.example.com', [TOOL_SEARCH]: 'true' }, expect: 'deferred' },
  { name: 'base URL in a settings file and ENABLE_TOOL_SEARCH in the shell: tool search is set, base URL not consulted', shell: { [TOOL_SEARCH]: 'auto' }, settings: [file('user', { [BASE_URL]: 'https://gateway.example.com' })], expect: 'deferred@10' },

  // Precedence among places.
  { name: 'managed settings win over user settings', settings: [file('managed', { [TOOL_SEARCH]: 'false' }), file('user', { [TOOL_SEARCH]: 'true' })], expect: 'up-front', evidence: [`${TOOL_SEARCH}@${PATHS.managed}=false`] },
  { name: 'local wins over project wins over user', settings: [file('local', { [TOOL_SEARCH]: 'auto:20' }), file('project', { [TOOL_SEARCH]: 'false' }), file('user', { [TOOL_SEARCH]: 'true' })], expect: 'deferred@20' },
  { name: 'tier order decides, not the order sources are passed in', settings: [file('user', { [TOOL_SEARCH]: 'true' }), file('project', { [TOOL_SEARCH]: 'false' })], expect: 'up-front' },
  { name: 'a settings env block wins over the shell', shell: { [TOOL_SEARCH]: 'false' }, settings: [file('user', { [TOOL_SEARCH]: 'true' })], expect: 'deferred', evidence: [`${TOOL_SEARCH}@${PATHS.user}=true`] },
  { name: 'the shell decides what no settings file sets', shell: { [TOOL_SEARCH]: 'false' }, settings: [absent('managed'), file('user', { OTHER: 'x' })], expect: 'up-front', evidence: [`${TOOL_SEARCH}@shell=false`] },
  { name: 'betas 0 in settings is what the shell 1 is replaced by', shell: { [BETAS]: '1' }, settings: [file('user', { [BETAS]: '0' })], expect: 'deferred' },
  { name: 'an undefined shell variable is unset', shell: { [TOOL_SEARCH]: undefined }, expect: 'deferred' },

  // The organisation override.
  { name: 'managed ENABLE_TOOL_SEARCH undocumented while betas on: refused', shell: { [BETAS]: '1' }, settings: [file('managed', { [TOOL_SEARCH]: 'org-keeps-it-on' })], expect: 'refused:unrecognized-value', evidence: [`${BETAS}@shell=1`, `${TOOL_SEARCH}@${PATHS.managed}=org-keeps-it-on`] },
  { name: 'drop-in ENABLE_TOOL_SEARCH undocumented while betas on: refused', shell: { [BETAS]: '1' }, settings: [absent('managed'), file('managed-drop-in', { [TOOL_SEARCH]: 'org-keeps-it-on' })], expect: 'refused:unrecognized-value' },
  { name: 'managed ENABLE_TOOL_SEARCH non-string while betas on: refused', shell: { [BETAS]: '1' }, settings: [file('managed', { [TOOL_SEARCH]: true })], expect: 'refused:unreadable-value' },
  { name: 'managed ENABLE_TOOL_SEARCH documented while betas on: up front', shell: { [BETAS]: '1' }, settings: [file('managed', { [TOOL_SEARCH]: 'true' })], expect: 'up-front' },
  { name: 'user ENABLE_TOOL_SEARCH undocumented while betas on: up front (the override is managed only)', shell: { [BETAS]: '1' }, settings: [file('user', { [TOOL_SEARCH]: 'org-keeps-it-on' })], expect: 'up-front' },
];

describe('deferralPosture', () => {
  it.each(ROWS)('$name', (row) => {
    const posture = deferralPosture(row.shell ?? {}, row.settings ?? []);
    expect(summary(posture)).toBe(row.expect);
    if (row.evidence !== undefined) {
      if (row.evidence.length === 0) expect(posture.evidence).toEqual([]);
      else expect(evidenceLines(posture)).toEqual(expect.arrayContaining(row.evidence));
    }
    expect(posture.reason).toMatch(/^[A-Z/].*\.$/s);
    expect(JSON.stringify(posture)).not.toContain(CANARY);
  });

  it('says documented default when nothing is set', () => {
    expect(deferralPosture({}, []).reason).toMatch(/documented default/);
  });

  it('never puts a value of another variable into its output', () => {
    const env = { ANTHROPIC_API_KEY: CANARY, GITHUB_TOKEN: CANARY };
    const posture = deferralPosture({ ...env, [TOOL_SEARCH]: 'auto' }, [file('managed', env), file('user', env)]);
    expect(summary(posture)).toBe('deferred@10');
    expect(JSON.stringify(posture)).not.toContain(CANARY);
  });
});

describe('thresholdVerdict', () => {
  const verdict = (deferredTokens: number, thresholdPercent = 10, band: { low: number; high: number } = CLAUDE_DIVERGENCE_BAND) =>
    thresholdVerdict({ deferredTokens, thresholdPercent, contextWindow: DEFAULT_CONTEXT_WINDOW, band });

  it('publishes the band and window it converts through', () => {
    expect(CLAUDE_DIVERGENCE_BAND).toEqual({ low: 0.19, high: 1.93 });
    expect(DEFAULT_CONTEXT_WINDOW).toBe(200_000);
  });

  it('is above only when the low end reaches the threshold', () => {
    // 10% of 200k is 20,000; 0.19 x 105,264 = 20,000.16.
    expect(verdict(105_264)).toEqual({ verdict: 'above', lowTokens: 20_000, highTokens: 203_160, thresholdTokens: 20_000 });
    expect(verdict(105_263).verdict).toBe('straddles');
    expect(verdict(1_000_000).verdict).toBe('above');
  });

  it('is below only when the high end does not reach the threshold', () => {
    // 1.93 x 10,362 = 19,998.66 -> 19,999; 1.93 x 10,363 = 20,000.59 -> 20,001.
    expect(verdict(10_362)).toEqual({ verdict: 'below', lowTokens: 1_968, highTokens: 19_999, thresholdTokens: 20_000 });
    expect(verdict(10_363).verdict).toBe('straddles');
  });

  it('counts a high end exactly on the threshold as reaching it (not below)', () => {
    expect(verdict(10_000, 10, { low: 1, high: 2 })).toMatchObject({ verdict: 'straddles', highTokens: 20_000 });
    expect(verdict(20_000, 10, { low: 1, high: 2 })).toMatchObject({ verdict: 'above', lowTokens: 20_000 });
    expect(verdict(9_999, 10, { low: 1, high: 2 })).toMatchObject({ verdict: 'below', highTokens: 19_998 });
  });

  it('takes the threshold as a percentage of the window', () => {
    expect(verdict(50_000, 5).thresholdTokens).toBe(10_000);
    expect(verdict(0, 0)).toMatchObject({ verdict: 'above', thresholdTokens: 0 });
    expect(verdict(0, 100)).toMatchObject({ verdict: 'below', thresholdTokens: 200_000 });
  });

  it('is not moved by float noise at a whole token', () => {
    // 100 x 0.57 is 56.99999999999999 and 100 x 1.1 is 110.00000000000001 in floating point.
    expect(thresholdVerdict({ deferredTokens: 100, thresholdPercent: 57, contextWindow: 100, band: { low: 0.57, high: 1.1 } })).toMatchObject({ verdict: 'above', lowTokens: 57, highTokens: 110 });
    // 0.19 x 100 is 19.000000000000004 in floating point; the low end is still 19.
    expect(thresholdVerdict({ deferredTokens: 100, thresholdPercent: 19, contextWindow: 100, band: CLAUDE_DIVERGENCE_BAND })).toMatchObject({ verdict: 'above', lowTokens: 19, thresholdTokens: 19 });
  });

  it.each([
    { deferredTokens: -1, thresholdPercent: 10, contextWindow: 200_000, band: CLAUDE_DIVERGENCE_BAND },
    { deferredTokens: Number.NaN, thresholdPercent: 10, contextWindow: 200_000, band: CLAUDE_DIVERGENCE_BAND },
    { deferredTokens: 1, thresholdPercent: 101, contextWindow: 200_000, band: CLAUDE_DIVERGENCE_BAND },
    { deferredTokens: 1, thresholdPercent: 10, contextWindow: 0, band: CLAUDE_DIVERGENCE_BAND },
    { deferredTokens: 1, thresholdPercent: 10, contextWindow: 200_000, band: { low: 2, high: 1 } },
  ])('refuses arguments that are not a range question: %o', (args) => {
    let caught: unknown;
    try {
      thresholdVerdict(args);
    } catch (error) {
      caught = error;
    }
    expect(isMcpctxError(caught, 'INVALID_ARGUMENT')).toBe(true);
  });
});

describe('matchesServerRule', () => {
  const stdio: Pick<ConfigEntry, 'name' | 'command' | 'args' | 'url' | 'expansions'> = { name: 'github', command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], expansions: [] };
  const remote: Pick<ConfigEntry, 'name' | 'command' | 'args' | 'url' | 'expansions'> = { name: 'docs', url: 'https://mcp.example.com/v1/sse', expansions: [] };

  it.each<[string, ServerRule, Pick<ConfigEntry, 'name' | 'command' | 'args' | 'url' | 'expansions'>, boolean | 'unevaluable']>([
    ['serverName exact', { serverName: 'github' }, stdio, true],
    ['serverName is case-sensitive', { serverName: 'GitHub' }, stdio, false],
    ['serverName other', { serverName: 'gitlab' }, stdio, false],
    ['serverName with an expansion', { serverName: '${NAME}' }, stdio, 'unevaluable'],
    ['serverCommand equal to command and args', { serverCommand: ['npx', '-y', '@modelcontextprotocol/server-github'] }, stdio, true],
    ['serverCommand a prefix only', { serverCommand: ['npx', '-y'] }, stdio, false],
    ['serverCommand longer', { serverCommand: ['npx', '-y', '@modelcontextprotocol/server-github', '--x'] }, stdio, false],
    ['serverCommand with a different arg', { serverCommand: ['npx', '-y', 'other'] }, stdio, false],
    ['serverCommand with no args on the entry', { serverCommand: ['server'] }, { name: 's', command: 'server', expansions: [] }, true],
    ['serverCommand against a remote entry', { serverCommand: ['npx'] }, remote, false],
    ['serverCommand against an entry with an expansion in args', { serverCommand: ['node', 'x'] }, { name: 's', command: 'node', args: ['${HOME}/x.js'], expansions: [{ where: 'args[0]', variables: ['HOME'] }] }, 'unevaluable'],
    ['serverCommand against an entry with an expansion in command', { serverCommand: ['node'] }, { name: 's', command: '${env:NODE}', expansions: [{ where: 'command', variables: ['NODE'] }] }, 'unevaluable'],
    ['serverCommand against an entry whose reader marked an arg as expanded', { serverCommand: ['node', '$HOME/x.js'] }, { name: 's', command: 'node', args: ['$HOME/x.js'], expansions: [{ where: 'args[0]', variables: ['HOME'] }] }, 'unevaluable'],
    ['serverCommand holding an expansion', { serverCommand: ['npx', '-y', '${PKG}'] }, stdio, 'unevaluable'],
    ['serverCommand ignores an expansion outside the compared part', { serverCommand: ['npx', '-y', '@modelcontextprotocol/server-github'] }, { ...stdio, expansions: [{ where: 'env.GITHUB_TOKEN', variables: ['TOKEN'] }] }, true],
    ['serverUrl exact', { serverUrl: 'https://mcp.example.com/v1/sse' }, remote, true],
    ['serverUrl wildcard host and path', { serverUrl: 'https://*.example.com/*' }, remote, true],
    ['a ? in serverUrl is literal', { serverUrl: 'https://mcp.example.com/v1/ss?' }, remote, false],
    ['serverUrl dot is literal', { serverUrl: 'https://mcp*example.org/*' }, remote, false],
    ['serverUrl is anchored', { serverUrl: 'https://mcp.example.com/v1' }, remote, false],
    ['serverUrl against a stdio entry', { serverUrl: '*' }, stdio, false],
    ['serverUrl against an entry with an expanded url', { serverUrl: 'https://*' }, { name: 'r', url: 'https://${HOST}/mcp', expansions: [{ where: 'url', variables: ['HOST'] }] }, 'unevaluable'],
    ['serverUrl holding an expansion', { serverUrl: 'https://${HOST}/*' }, remote, 'unevaluable'],
    ['an unrecognized rule', { unrecognized: 'an entry has none of serverName, serverCommand, serverUrl' }, stdio, 'unevaluable'],
  ])('%s', (_name, rule, entry, expected) => {
    expect(matchesServerRule(rule, entry)).toBe(expected);
  });

  it('does not read a dot in a pattern as any character', () => {
    expect(matchesServerRule({ serverUrl: 'https://mcp.example.com/*' }, { name: 'r', url: 'https://mcpXexample.com/a', expansions: [] })).toBe(false);
  });
});
