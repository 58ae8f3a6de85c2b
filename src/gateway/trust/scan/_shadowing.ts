/**
 * Tool names that a model can take for one another: the same name offered by two upstreams, or
 * names that differ only by case, separators (`_`, `-`, `.`, spaces) or characters that look alike
 * (Cyrillic and Greek letters standing in for Latin ones, full-width forms). A tool that shadows
 * another can catch the calls meant for it.
 */
import { foldCaseAndSeparators, foldName } from '../../../text/index.js';

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

/** Every group of two or more tools whose names collide, with the weakest difference between them. */
export function shadowedNames(tools: readonly NamedTool[]): Shadowing[] {
  const groups = new Map<string, NamedTool[]>();
  for (const tool of tools) {
    const key = foldName(tool.name);
    groups.set(key, [...(groups.get(key) ?? []), tool]);
  }
  const found: Shadowing[] = [];
  for (const [key, members] of groups) {
    if (members.length < 2) continue;
    const names = new Set(members.map((tool) => tool.name));
    const kind: ShadowKind = names.size === 1 ? 'same name' : new Set(members.map((tool) => foldCaseAndSeparators(tool.name))).size === 1 ? 'case or separators' : 'look-alike characters';
    found.push({ key, kind, tools: members });
  }
  return found;
}
