/**
 * What `--state` takes: the URL of the Redis that several gateway instances share. Parsed here
 * once, so every message names the store by its `label` (the URL with any password as `***`):
 * a password given in the URL never reaches an error, a log or a label.
 */
import { McpctxError } from '../../errors/index.js';

export interface StateUrl {
  /** The URL as given: what the connection uses (it may hold a password: never show it). */
  readonly href: string;
  /** The URL with any password replaced by `***`: how every message names the store. */
  readonly label: string;
  /** `rediss://`: the connection uses TLS. */
  readonly tls: boolean;
  readonly db: number;
}

const TAKES = '--state takes redis://[user[:password]@]host[:port][/db] or rediss://... (TLS), db an integer 0-15';

/** `redis://user:***@host:port/db` for a URL that holds a password, the URL itself otherwise. */
function redacted(url: URL): string {
  if (url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.password = '***';
  return copy.href;
}

/** Text that did not parse as a URL, with whatever sits between `//` and `@` hidden (it may be a password). */
function redactedText(text: string): string {
  return JSON.stringify(text.replace(/\/\/[^/]*@/, '//***@'));
}

export function parseStateUrl(text: string): StateUrl {
  if (typeof text !== 'string' || text.trim() === '') throw new McpctxError('USAGE', `The shared state URL is empty: ${TAKES}.`, { option: '--state' });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new McpctxError('USAGE', `The shared state ${redactedText(text)} is not a URL: ${TAKES}.`, { option: '--state' });
  }
  const label = redacted(url);
  const fail = (why: string): never => {
    throw new McpctxError('USAGE', `The shared state ${label} ${why}: ${TAKES}.`, { option: '--state', value: label });
  };
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') fail(`is not a Redis URL (${url.protocol.replace(/:$/, '')})`);
  if (url.hostname === '') fail('names no host');
  if (url.search !== '' || url.hash !== '') fail('has a query or a fragment');
  let db = 0;
  if (url.pathname !== '' && url.pathname !== '/') {
    const digits = url.pathname.slice(1);
    if (!/^\d{1,2}$/.test(digits) || Number(digits) > 15) fail(`names the database ${JSON.stringify(digits)}`);
    db = Number(digits);
  }
  return { href: text, label, tls: url.protocol === 'rediss:', db };
}
