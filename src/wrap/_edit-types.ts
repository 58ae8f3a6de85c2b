import type { JsonObject } from '../json/index.js';

/** What one format's editor does to the server map at `serversAt`: take `remove` out, put `addName: addValue` in at its end. */
export interface ServerMapEdit {
  readonly serversAt: readonly string[];
  readonly remove: readonly string[];
  readonly addName: string;
  /** The entry as the client reads it: strings, numbers, booleans, arrays of strings, objects. */
  readonly addValue: JsonObject;
}
