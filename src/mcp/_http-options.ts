import { McpctxError } from '../errors/index.js';

// Checks on what configures an HTTP upstream: its URL and its headers, whose values are secrets.

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/** Headers the transport sets itself; a configured one would conflict. */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'content-length', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']);

export function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new McpctxError('USAGE', 'the server URL is not a valid URL; give one like http://127.0.0.1:3000/mcp', {});
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new McpctxError('USAGE', `the server URL must start with http:// or https://, not ${url.protocol}`, { protocol: url.protocol });
  }
  if (url.username !== '' || url.password !== '') {
    // fetch refuses them, and its message would repeat the URL, password included.
    throw new McpctxError('USAGE', `the server URL ${url.origin}${url.pathname} carries credentials; pass them in headers (Authorization) instead`, {});
  }
  return url;
}

/** Header names lower-cased; a name or value fetch would refuse is refused here, naming only the header. */
export function checkHeaders(headers: Readonly<Record<string, string>>): Array<readonly [string, string]> {
  const checked: Array<readonly [string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new McpctxError('USAGE', `"${name}" is not a valid HTTP header name`, { header: name });
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) throw new McpctxError('USAGE', `the header ${name} is set by the transport; remove it from the headers`, { header: name });
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      throw new McpctxError('USAGE', `the value of header ${name} is not a single-line string`, { header: name });
    }
    checked.push([lower, value]);
  }
  return checked;
}

/** Every header value, the credential of an `Authorization: <scheme> <credential>` alone too, and the URL's query values. */
export function secretsOf(headers: ReadonlyArray<readonly [string, string]>, url: URL): Array<[string, string]> {
  const secrets: Array<[string, string]> = [];
  for (const [name, value] of headers) {
    secrets.push([`header:${name}`, value]);
    const credential = /^\S+\s+(\S.*)$/.exec(value)?.[1];
    if (credential !== undefined) secrets.push([`header:${name}`, credential]);
  }
  for (const [name, value] of url.searchParams) secrets.push([`query:${name}`, value]);
  return secrets;
}

export function isHeaderSafe(value: string, maxChars: number): boolean {
  return value.length <= maxChars && VISIBLE_ASCII.test(value);
}
