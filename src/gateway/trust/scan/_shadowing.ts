/**
 * Tool names that a model can take for one another: the same name offered by two upstreams, or
 * names that differ only by case, separators (`_`, `-`, `.`, spaces) or characters that look alike
 * (Cyrillic and Greek letters standing in for Latin ones, full-width forms). A tool that shadows
 * another can catch the calls meant for it.
 */

export interface NamedTool {
  upstream: string;
  name: string;
}

export type ShadowKind = 'same name' | 'case or separators' | 'look-alike characters';

export interface Shadowing {
  /** The form the names share once case, separators and look-alikes are set aside. */
  key: string;
  kind: ShadowKind;
  tools: NamedTool[];
}

/** Letters from other scripts that render like Latin ones (a small, common set). */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', х: 'x', у: 'y', і: 'i', ј: 'j', ѕ: 's', һ: 'h', ԁ: 'd', ԛ: 'q', ԝ: 'w', к: 'k', м: 'm', т: 't', в: 'b', н: 'h',
  α: 'a', ο: 'o', ρ: 'p', ν: 'v', τ: 't', υ: 'u', ι: 'i', κ: 'k', χ: 'x', ε: 'e',
};

const SEPARATORS = /[\s_.-]+/g;

function folded(name: string): string {
  return name.toLowerCase().replace(SEPARATORS, '');
}

function unconfused(name: string): string {
  // NFKC maps full-width and other compatibility forms to their plain letters first.
  return [...folded(name.normalize('NFKC'))].map((char) => LOOK_ALIKES[char] ?? char).join('');
}

/** Every group of two or more tools whose names collide, with the weakest difference between them. */
export function shadowedNames(tools: readonly NamedTool[]): Shadowing[] {
  const groups = new Map<string, NamedTool[]>();
  for (const tool of tools) {
    const key = unconfused(tool.name);
    groups.set(key, [...(groups.get(key) ?? []), tool]);
  }
  const found: Shadowing[] = [];
  for (const [key, members] of groups) {
    if (members.length < 2) continue;
    const names = new Set(members.map((tool) => tool.name));
    const kind: ShadowKind = names.size === 1 ? 'same name' : new Set(members.map((tool) => folded(tool.name))).size === 1 ? 'case or separators' : 'look-alike characters';
    found.push({ key, kind, tools: members });
  }
  return found;
}
