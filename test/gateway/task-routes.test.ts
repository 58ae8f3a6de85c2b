// TaskRoutes: the per-session map from the task ids a client holds to the upstream that made each.
// The clock is injected: expiry is tested without waiting.
import { describe, expect, it } from 'vitest';
import { TaskRoutes } from '../../src/gateway/tasks/index.js';

const task = (taskId: string, status = 'working', ttl: number | null = 1000) => ({ taskId, status, ttl, createdAt: '', lastUpdatedAt: '' });

describe('TaskRoutes', () => {
  it('namespaces ids with several upstreams and routes only the ids it was given', () => {
    const routes = new TaskRoutes({ namespaced: true, separator: '__' });
    expect(routes.remember('a', task('t1'), { tool: 'a__research', ownName: 'research', args: { topic: 'x' } })).toBe('a__t1');
    expect(routes.remember('b', task('t1'))).toBe('b__t1');
    expect(routes.find('a__t1')).toEqual({ upstream: 'a', upstreamId: 't1', origin: { tool: 'a__research', ownName: 'research', args: { topic: 'x' } } });
    expect(routes.find('b__t1')).toEqual({ upstream: 'b', upstreamId: 't1', origin: undefined });
    for (const unknown of ['t1', 'a__t2', 'c__t1', '__proto__', 'constructor', 1, undefined]) expect(routes.find(unknown)).toBeUndefined();
    // Seen again without an origin (tasks/list), the origin is kept.
    routes.remember('a', task('t1', 'completed'));
    expect(routes.find('a__t1')?.origin?.tool).toBe('a__research');
    // A status from an upstream adds no route for an id it never gave.
    routes.seen('a', task('t9'));
    expect(routes.find('a__t9')).toBeUndefined();
  });

  it('keeps the upstream\'s ids as they are with one upstream', () => {
    const routes = new TaskRoutes({ namespaced: false, separator: '__' });
    expect(routes.remember('a', task('t1'))).toBe('t1');
    expect(routes.find('t1')?.upstream).toBe('a');
  });

  it('drops a route a ttl after the task was last seen, and every route of an upstream that ended', () => {
    let now = 0;
    const routes = new TaskRoutes({ namespaced: true, separator: '__', now: () => now });
    routes.remember('a', task('t1', 'working', 1000));
    routes.remember('a', task('t2', 'working', null));
    routes.remember('b', task('t3', 'working', 1000));
    now = 900;
    routes.seen('a', task('t1', 'completed', 1000));
    now = 1500;
    expect(routes.find('a__t1')).toBeDefined();
    expect(routes.find('b__t3')).toBeUndefined();
    now = 1900;
    expect(routes.find('a__t1')).toBeUndefined();
    // No ttl: kept until evicted.
    expect(routes.find('a__t2')).toBeDefined();
    routes.forgetUpstream('a');
    expect(routes.find('a__t2')).toBeUndefined();
  });

  it('is bounded: when full, the least recently seen ended task goes first, then the least recently seen', () => {
    const routes = new TaskRoutes({ namespaced: true, separator: '__', capacity: 3 });
    routes.remember('a', task('w1'));
    routes.remember('a', task('done', 'completed'));
    routes.remember('a', task('w2'));
    routes.remember('a', task('w3'));
    expect(routes.size).toBe(3);
    expect(routes.find('a__done')).toBeUndefined();
    expect(routes.find('a__w1')).toBeDefined();
    routes.seen('a', task('w1'));
    routes.remember('a', task('w4'));
    expect(routes.size).toBe(3);
    expect(routes.find('a__w2')).toBeUndefined();
    expect(['a__w1', 'a__w3', 'a__w4'].map((id) => routes.find(id)?.upstreamId)).toEqual(['w1', 'w3', 'w4']);
  });
});
