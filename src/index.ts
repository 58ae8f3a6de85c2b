export * from './errors/index.js';
export * from './tokens/index.js';
export * from './mcp/index.js';
export * from './measure/index.js';
export * from './shape/index.js';
export * from './shape/files/index.js';
