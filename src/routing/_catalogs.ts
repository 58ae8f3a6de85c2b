import { seededShuffle, streamFor } from '../stats/index.js';
import type { Condition, DistractorKind, RequestCatalog, RoutingConfig, RoutingRequest, RoutingTool, RoutingTools } from './_types.js';

/** The kinds of padding a config asks for: one per pool it names (`none` when it names none). */
export function distractorKinds(config: RoutingConfig): DistractorKind[] {
  const kinds: DistractorKind[] = [];
  if (config.distractors.unrelated !== undefined) kinds.push('unrelated');
  if (config.distractors.confusable !== undefined) kinds.push('confusable');
  return kinds.length > 0 ? kinds : ['none'];
}

/**
 * Every (kind, size) condition with the distractors it adds. Each pool is put in one seeded
 * order, and a size takes the first distractors it needs from it: confusable tools first, then
 * unrelated ones, for the confusable kind; unrelated ones only for the unrelated kind. So a
 * larger catalog holds every tool of a smaller one of its kind, and the sizes differ only in
 * how many tools are offered.
 */
export function buildConditions(config: RoutingConfig, tools: RoutingTools): Condition[] {
  const unrelated = seededShuffle(tools.unrelated.map((tool) => tool.name), streamFor(config.seed, 'pool:unrelated'));
  const confusable = seededShuffle(tools.confusable.map((tool) => tool.name), streamFor(config.seed, 'pool:confusable'));
  const conditions: Condition[] = [];
  for (const kind of distractorKinds(config)) {
    const padding = kind === 'confusable' ? [...confusable, ...unrelated] : kind === 'unrelated' ? unrelated : [];
    for (const size of config.sizes) conditions.push({ kind, size, distractors: padding.slice(0, size - tools.domain.length) });
  }
  return conditions;
}

/** The tools of a condition, domain first then distractors in the order they were taken. */
export function conditionTools(condition: Condition, tools: RoutingTools): RoutingTool[] {
  const byName = new Map([...tools.domain, ...tools.unrelated, ...tools.confusable].map((tool) => [tool.name, tool]));
  return [...tools.domain, ...condition.distractors.map((name) => byName.get(name)!)];
}

/**
 * The catalog one request is offered in one condition: the condition's tools in a seeded order
 * of the request's own (stream `catalog:<kind>:<size>:<request id>`), so where a tool sits in
 * the list is not what is measured, and one request's order does not depend on the others.
 */
export function requestCatalog(seed: number, condition: Condition, domain: readonly RoutingTool[], request: RoutingRequest): RequestCatalog {
  const names = [...domain.map((tool) => tool.name), ...condition.distractors];
  const order = seededShuffle(names, streamFor(seed, `catalog:${condition.kind}:${condition.size}:${request.id}`));
  return { requestId: request.id, kind: condition.kind, size: condition.size, order };
}
