// Reading config text (JSON with comments, YAML) and collecting its problems, shared by every
// config mcpctx reads: the gateway's, the audit's client configs, an experiment's. Pure: no I/O.
export { Problems, childPath, configError, type ConfigProblem } from './_problems.js';
export { configSyntax, firstLine, parseConfigText, parseJsonText, parseYamlText, type ConfigSyntax, type ParsedText, type SyntaxProblem } from './_parse-text.js';
