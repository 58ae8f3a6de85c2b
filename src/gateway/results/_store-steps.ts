/**
 * The shaper's work that touches the store (offloading a result, reading it back, serving a page)
 * is written once, as a generator that yields each store operation it needs. A synchronous store
 * (memory, SQLite, a host's files) runs it on the calling thread, as the host's sync API needs; a
 * shared store (Redis) runs it with an await per operation. Neither copy of the logic exists twice.
 */
import { McpctxError } from '../../errors/index.js';
import type { AnyOffloadStore, OffloadStore, StorePut } from './_offload-store.js';

export type StoreStep = { readonly op: 'get'; readonly id: string } | { readonly op: 'put'; readonly id: string; readonly value: string } | { readonly op: 'delete'; readonly id: string };

/** A piece of work that yields store operations and returns T. */
export type StoreSteps<T> = Generator<StoreStep, T, unknown>;

export function* storeGet(id: string): StoreSteps<string | undefined> {
  return (yield { op: 'get', id }) as string | undefined;
}

export function* storePut(id: string, value: string): StoreSteps<StorePut> {
  return (yield { op: 'put', id, value }) as StorePut;
}

export function* storeDelete(id: string): StoreSteps<void> {
  yield { op: 'delete', id };
}

export function isSharedStore(store: AnyOffloadStore): store is Exclude<AnyOffloadStore, OffloadStore> {
  return 'shared' in store && store.shared === true;
}

/** Runs `steps` against a synchronous store; a shared store is a USAGE error (use the async method). */
export function runStoreSteps<T>(store: AnyOffloadStore, steps: StoreSteps<T>): T {
  if (isSharedStore(store)) {
    throw new McpctxError('USAGE', 'This store is shared (asynchronous): use the shaper\'s async methods (shapeAsync, readResultAsync) with it.');
  }
  let next = steps.next();
  while (next.done !== true) {
    const step = next.value;
    let answer: unknown;
    try {
      answer = step.op === 'get' ? store.get(step.id) : step.op === 'put' ? store.put(step.id, step.value) : store.delete(step.id);
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(answer);
  }
  return next.value;
}

/** Runs `steps` against any store, awaiting each operation. */
export async function runStoreStepsAsync<T>(store: AnyOffloadStore, steps: StoreSteps<T>): Promise<T> {
  let next = steps.next();
  while (next.done !== true) {
    const step = next.value;
    let answer: unknown;
    try {
      answer = await (step.op === 'get' ? store.get(step.id) : step.op === 'put' ? store.put(step.id, step.value) : store.delete(step.id));
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(answer);
  }
  return next.value;
}
