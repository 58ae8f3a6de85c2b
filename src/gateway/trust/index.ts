// Trust checks between the client and the upstreams: tool arguments against their schemas.
export {
  ArgumentChecker,
  MAX_SCHEMA_CHARS,
  MAX_SCHEMA_DEPTH,
  SchemaCache,
  argumentRefusalText,
  type ArgumentCheck,
  type ArgumentProblem,
  type UncheckedTool,
} from './_arguments.js';
