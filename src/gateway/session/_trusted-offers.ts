/**
 * The trust gates (pins, then the poisoning scan) over what an upstream offers besides tools:
 * the `instructions` of its initialize answer, its prompts, resources and resource templates. A
 * prompt, resource or template held back is left out of its list and refused by name or URI;
 * held instructions are replaced by a short note, since the initialize answer goes out before the
 * client could be told anything else. With pins off and `scan: off` everything passes as it came.
 */
import { isPlainObject, type JsonObject } from '../../json/index.js';
import { INSTRUCTIONS_KEY, type PinItem, type PinKind } from '../trust/index.js';
import type { SessionServices } from './_context.js';

export type OfferKind = Exclude<PinKind, 'tool' | 'instructions'>;

/** Where a listed item keeps its key. */
const KEY_FIELD: Record<OfferKind, string> = { prompt: 'name', resource: 'uri', template: 'uriTemplate' };

/**
 * Whether the gates can hold anything back (pins, or `scan: hold`): then lists are collected whole
 * and gated. Otherwise they are relayed as they came, and with `scan: warn` only read for the log.
 */
export function trustGating(services: SessionServices): boolean {
  return services.pins !== undefined || services.scanGate.mode === 'hold';
}

/** `scan: warn` without pins: what is relayed as it came is scanned for the log (findings once per definition). */
export function reportFindings(services: SessionServices, upstream: string, method: string, params: JsonObject | undefined, answer: unknown): void {
  if (services.scanGate.mode === 'off' || !isPlainObject(answer)) return;
  if (method === 'prompts/get') {
    services.scanGate.checkAnswer(upstream, `prompt:${String(params?.name)}`, answer);
    return;
  }
  const kind = method === 'prompts/list' ? 'prompt' : method === 'resources/list' ? 'resource' : method === 'resources/templates/list' ? 'template' : undefined;
  if (kind === undefined) return;
  const listKey = kind === 'prompt' ? 'prompts' : kind === 'resource' ? 'resources' : 'resourceTemplates';
  const listed = Object.hasOwn(answer, listKey) ? answer[listKey] : undefined;
  if (!Array.isArray(listed)) return;
  services.scanGate.filterItems(upstream, kind, itemsOf(kind, listed));
}

/** What the client may see of one upstream's list, and why the rest is held, by key. */
export interface TrustedList {
  items: unknown[];
  held: Map<string, string>;
}

/** Runs one upstream's list of one kind through the pins and the scan. Items without a string key are left out: nothing could name them. */
export async function trustedList(services: SessionServices, upstream: string, kind: OfferKind, listed: readonly unknown[]): Promise<TrustedList> {
  const { trusted, held } = await gate(services, upstream, kind, itemsOf(kind, listed));
  return { items: trusted.map((item) => item.definition), held };
}

function itemsOf(kind: OfferKind, listed: readonly unknown[]): PinItem[] {
  const field = KEY_FIELD[kind];
  const items: PinItem[] = [];
  for (const item of listed) {
    if (!isPlainObject(item) || !Object.hasOwn(item, field)) continue;
    const key = item[field];
    if (typeof key === 'string') items.push({ key, definition: item });
  }
  return items;
}

/**
 * The instructions to hand the client for one upstream: as sent, a note saying they were held
 * (changed since pinned, never approved, or flagged by the scan with `hold`), or undefined when
 * it sent none. An upstream without instructions is still checked, so instructions it adds
 * later are new and held.
 */
export async function trustedInstructions(services: SessionServices, upstream: string, text: unknown): Promise<string | undefined> {
  const items: PinItem[] = typeof text === 'string' && text.trim() !== '' ? [{ key: INSTRUCTIONS_KEY, definition: text }] : [];
  const { trusted, held } = await gate(services, upstream, 'instructions', items);
  const reason = held.get(INSTRUCTIONS_KEY);
  if (reason !== undefined) return `[mcpctx gateway: the instructions of ${upstream} were held back and are not shown. ${reason.replace(/^it is held back by the gateway: /, 'Why: ')}]`;
  const only = trusted[0]?.definition;
  return typeof only === 'string' ? only : undefined;
}

async function gate(services: SessionServices, upstream: string, kind: PinKind, items: readonly PinItem[]): Promise<{ trusted: PinItem[]; held: Map<string, string> }> {
  const pinned = services.pins === undefined ? { trusted: [...items], held: new Map<string, string>() } : await services.pins.filterItems(upstream, kind, items);
  const scanned = services.scanGate.filterItems(upstream, kind, pinned.trusted);
  return { trusted: scanned.trusted, held: new Map([...pinned.held, ...scanned.held]) };
}
