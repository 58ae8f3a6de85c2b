// Badges: valid SVG, the band colour and count, statuses in grey, and safe file names.
import { describe, expect, it } from 'vitest';
import { BADGES_DIR, badgeFileName, badgeSvg } from '../../../src/results/leaderboard/index.js';
import { server } from './_state.js';

// badge-maker's named colours (lib/color.js).
const HEX = { brightgreen: '#4b0', green: '#67ac09', yellow: '#d8b800', orange: '#ea7233', red: '#dd4343', lightgrey: '#939393' };

/** Well-formed XML enough for an SVG: one root, every tag closed in order, only known entities. */
function expectWellFormedSvg(svg: string): void {
  expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  expect(svg.endsWith('</svg>\n')).toBe(true);
  const stack: string[] = [];
  for (const match of svg.matchAll(/<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g)) {
    const [, closing, tag, , selfClosing] = match;
    if (closing) expect(stack.pop()).toBe(tag);
    else if (!selfClosing) stack.push(tag as string);
  }
  expect(stack).toEqual([]);
  const textOnly = svg.replace(/<\/?[A-Za-z][\w:-]*(?:\s+[\w:-]+="[^"<]*")*\s*\/?>/g, '');
  expect(textOnly).not.toMatch(/[<>]/);
  expect(textOnly.replace(/&(amp|lt|gt|quot|apos);/g, '')).not.toContain('&');
}

function fillsOf(svg: string): string[] {
  return [...svg.matchAll(/<rect [^>]*fill="(#[0-9a-f]+)"/g)].map((match) => match[1] as string);
}

describe('badgeSvg', () => {
  it('shows the tokens in the band colour of the total', () => {
    const svg = badgeSvg(server('everything', { tokens: 1_708 }));
    expectWellFormedSvg(svg);
    expect(svg).toContain('aria-label="context cost: 1,708 tokens"');
    expect(svg).toContain('>1,708 tokens</text>');
    expect(fillsOf(svg)).toContain(HEX.green);
  });

  it('changes colour exactly at the band limits', () => {
    const cases: Array<[number, string]> = [
      [999, HEX.brightgreen],
      [1_000, HEX.green],
      [4_999, HEX.green],
      [5_000, HEX.yellow],
      [14_999, HEX.yellow],
      [15_000, HEX.orange],
      [29_999, HEX.orange],
      [30_000, HEX.red],
    ];
    for (const [tokens, hex] of cases) {
      const svg = badgeSvg(server('s', { tokens }));
      expect(fillsOf(svg)).toContain(hex);
      expect(svg).toContain(`>${tokens.toLocaleString('en-US')} tokens</text>`);
    }
    expect(badgeSvg(server('one', { tokens: 1 }))).toContain('>1 token</text>');
  });

  it('shows a dynamic server its number, and every other status in lightgrey', () => {
    expect(badgeSvg(server('d', { status: 'dynamic', tokens: 6_000 }))).toContain('>6,000 tokens</text>');
    for (const status of ['timeout', 'auth-required', 'remote-auth-wall', 'not-applicable', 'not-yet-run'] as const) {
      const svg = badgeSvg(server('s', { published: status }));
      expectWellFormedSvg(svg);
      expect(svg).toContain(`aria-label="context cost: ${status}"`);
      expect(fillsOf(svg)).toContain(HEX.lightgrey);
      expect(svg).not.toContain('tokens');
    }
  });

  it('keeps a hostile name out of the SVG and out of the path', () => {
    const name = '../../<svg onload=alert(1)>&"\'/evil';
    const svg = badgeSvg(server(name, { tokens: 10, note: '<script>alert(2)</script>' }));
    expectWellFormedSvg(svg);
    expect(svg).not.toMatch(/onload|script|evil/);
    const file = badgeFileName(name);
    expect(file).toMatch(/^[A-Za-z0-9._-]+\.svg$/);
    expect(file.startsWith('.')).toBe(false);
    expect(badgeFileName('@modelcontextprotocol/server-everything')).toBe('modelcontextprotocol-server-everything.svg');
    expect(BADGES_DIR).toBe('badges');
  });

  it('is deterministic', () => {
    expect(badgeSvg(server('s', { tokens: 2_378 }))).toBe(badgeSvg(server('s', { tokens: 2_378 })));
  });
});
