/** Where logins are kept, and the URL a login is kept under. */
import { isAbsolute, posix, win32 } from 'node:path';
import { userConfigFolder } from '../config/index.js';
import { McpctxError } from '../errors/index.js';

/**
 * The auth file: `$MCPCTX_AUTH_FILE` when set (it must be absolute), else `auth.json` in mcpctx's
 * folder of the user's config folder (`$XDG_CONFIG_HOME/mcpctx`, `~/.config/mcpctx`,
 * `~/Library/Application Support/mcpctx`, `%APPDATA%\mcpctx`), the folder wrap uses.
 */
export function authFilePath(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform, home: string): string {
  const given = env.MCPCTX_AUTH_FILE;
  if (given !== undefined && given !== '') {
    if (!isAbsolute(given)) throw new McpctxError('USAGE', `MCPCTX_AUTH_FILE must be an absolute path, got ${JSON.stringify(given)}`, { variable: 'MCPCTX_AUTH_FILE' });
    return given;
  }
  const folderPlatform = platform === 'win32' || platform === 'darwin' ? platform : 'linux';
  const appData = env.APPDATA;
  const folder = userConfigFolder({ platform: folderPlatform, home, ...(appData === undefined || appData === '' ? {} : { appData }) }, env);
  return (folderPlatform === 'win32' ? win32.join : posix.join)(folder, 'auth.json');
}

/**
 * The canonical resource URL of an MCP server (RFC 8707, the MCP authorization spec): the URL as
 * WHATWG parses it (scheme and host lower-cased, default port dropped), its fragment removed, as
 * the MCP SDK's `resourceUrlFromServerUrl` makes the `resource` parameter. A URL carrying a user
 * or password is refused without repeating it (the password would be in the message).
 */
export function canonicalResource(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new McpctxError('USAGE', 'the server URL is not a valid URL; give one like https://mcp.example.com/mcp', {});
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new McpctxError('USAGE', `the server URL must start with http:// or https://, not ${url.protocol}`, { protocol: url.protocol });
  }
  if (url.username !== '' || url.password !== '') {
    throw new McpctxError('USAGE', `the server URL ${url.origin}${url.pathname} carries credentials; give it without user:password@`, {});
  }
  url.hash = '';
  return url.href;
}
