import { McpctxError } from '../errors/index.js';

/**
 * The key a login is stored under: the server URL's origin and path (no user, password, query or
 * fragment), so `https://mcp.example.com/mcp?x=1#a` and `https://MCP.example.com/mcp` share one login.
 */
export function loginKey(serverUrl: string): string {
  let url: URL;
  try {
    url = new URL(serverUrl);
  } catch {
    throw new McpctxError('USAGE', 'the server URL is not a valid URL; give one like https://mcp.example.com/mcp', {});
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new McpctxError('USAGE', `the server URL must start with http:// or https://, not ${url.protocol}`, { protocol: url.protocol });
  }
  if (url.username !== '' || url.password !== '') {
    throw new McpctxError('USAGE', `the server URL ${url.origin}${url.pathname} carries a user or password; give it without them`, {});
  }
  return `${url.origin}${url.pathname}`;
}

/**
 * True when a protected resource metadata document's `resource` covers `serverKey`: the same origin
 * and a path that is the server's own or a parent of it (RFC 9728 section 3.3 wants it to match the
 * URL the metadata was found for; a parent path is what servers publish for several endpoints).
 */
export function resourceCovers(resource: string, serverKey: string): boolean {
  let published: URL;
  let server: URL;
  try {
    published = new URL(resource);
    server = new URL(serverKey);
  } catch {
    return false;
  }
  if (published.origin !== server.origin || published.search !== '' || published.hash !== '') return false;
  const base = published.pathname.endsWith('/') ? published.pathname : `${published.pathname}/`;
  return server.pathname === published.pathname || server.pathname.startsWith(base);
}
