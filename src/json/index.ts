// Parsed JSON values: what every folder that reads them needs, and nothing else (a leaf: no imports).
export { MAX_JSON_DEPTH, describeValue, isPlainObject, nestsDeeperThan, soleStringMember, type JsonObject } from './_json-value.js';
export { ownValue, setOwn } from './_own.js';
