export { McpctxError, isMcpctxError, type McpctxErrorCode } from '../errors/index.js';
export { CursorCodec, INVALID_PARAMS, type CursorBinding } from './_cursor.js';
export {
  capText,
  defineProjection,
  pathsOf,
  truncationFlag,
  type FieldPath,
  type FieldSpec,
  type ProjectedField,
  type Projection,
  type ProjectionOptions,
} from './_projection.js';
export { pageByTokens, type CutRecord, type CutValue, type TokenPage, type TokenPageOptions, type TokenPageResult } from './_token-pager.js';
export { pageByCount, type CountPage, type CountPageOptions } from './_count-pager.js';
export { TEXT_FORMATS, formatText, toCompactJson, toCsv, toToon, type TextFormat } from './_formats.js';
export {
  buildToolResult,
  toolError,
  toolErrorFrom,
  type BuildToolResultOptions,
  type BuiltToolResult,
  type TextToolResult,
  type ToolErrorOptions,
} from './_tool-result.js';
export { scrubErrorText } from './_scrub.js';
export { guardToolResult, type GuardableResult, type RefusedPage, type ResultGuardOptions, type ResultRefusal } from './_guard.js';
export { fieldsParameter, type FieldsJsonSchema, type FieldsParameter, type FieldsParameterOptions } from './_fields-parameter.js';
export { guardServer, type GuardLogEntry, type ServerGuard, type ServerGuardOptions } from './_guard-server.js';
export { ResultCache, type CacheStatus, type ResultCacheKey, type ResultCacheOptions } from './_cache.js';
export { compareIds } from './_compare-ids.js';
export { stableJson } from './_stable-json.js';
export {
  partsTokensWithin,
  toolResultCost,
  toolResultCostAsync,
  toolResultParts,
  toolResultTokensWithin,
  type CountedResultPart,
  type ResultPart,
  type ResultPartKind,
  type ToolResultCost,
} from './_result-parts.js';
export { structuredCopyOf } from './_structured-copy.js';
