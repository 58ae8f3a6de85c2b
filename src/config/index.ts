// Reading config text (JSON with comments, YAML) and collecting its problems, shared by every
// config mcpctx reads: the gateway's, the audit's client configs, an experiment's; and what MCP
// clients write in their files (server maps, url keys, `${...}` references, their own settings),
// which the audit and the gateway both read. Pure: no I/O.
export { Problems, childPath, configError, type ConfigProblem } from './_problems.js';
export { configSyntax, firstLine, parseConfigText, parseJsonText, parseYamlText, type ConfigSyntax, type ParsedText, type SyntaxProblem } from './_parse-text.js';
export { CLIENT_ENTRY_KEYS, CLIENT_TOP_KEYS, EXPANSION, SERVER_MAP_PATHS, URL_KEYS, expansionName } from './_client-formats.js';
export { userConfigFolder, type UserFolderRoots } from './_user-folder.js';
