/**
 * Own-property reads and writes for objects whose keys come from a peer or a file. A key such as
 * `__proto__`, `constructor` or `toString` is then just a key: an assignment `object[key] = value`
 * would replace the object's prototype for `__proto__`, and a read `object[key]` or a `key in object`
 * check would find Object.prototype's members for the others.
 */

/** `record[key]` when it is the record's own property, else undefined (never an inherited member). */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Defines `key` as an own enumerable data property, whatever the key (`__proto__` included). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
