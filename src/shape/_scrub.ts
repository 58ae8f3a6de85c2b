/**
 * The default scrubbing of error text a model will read: a server's absolute paths (which name its
 * users, hosts and layout) and connection strings (which carry credentials) are replaced. It runs
 * before an author's own `redact` hook, on every McpctxError message the shape library turns into a
 * tool error. It is a safety net for the common shapes, not a guarantee: authors who put other
 * secrets into messages scrub them in `redact`.
 */
export function scrubErrorText(text: string): string {
  return text
    .replace(CREDENTIAL_URL, (match, scheme: string) => `${scheme}://[redacted]${trailing(match)}`)
    .replace(DATABASE_URL, (match, scheme: string) => `${scheme}://[redacted]${trailing(match)}`)
    .replace(FILE_URL, (match) => `file://…/${lastSegment(withoutTrailing(match), '/')}${trailing(match)}`)
    .replace(WINDOWS_PATH, (match) => `…\\${lastSegment(withoutTrailing(match), '\\')}${trailing(match)}`)
    .replace(POSIX_PATH, (match) => `…/${lastSegment(withoutTrailing(match), '/')}${trailing(match)}`);
}

/** Punctuation that ends a sentence or a list after a URL or path is kept, not scrubbed with it. */
const TRAILING = /[.,;:!?)\]}>]+$/;

function trailing(match: string): string {
  return TRAILING.exec(match)?.[0] ?? '';
}

function withoutTrailing(match: string): string {
  return match.replace(TRAILING, '');
}

/** Any URL with a user (and maybe a password) before `@`: `https://user:token@host/...`. */
const CREDENTIAL_URL = /\b([a-z][a-z0-9+.-]*):\/\/[^\s/@'"`]+@[^\s'"`]*/gi;
/** Database and broker URLs, which carry passwords in their query too: redacted whole. */
const DATABASE_URL =
  /\b(postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|oracle|cockroachdb|clickhouse|snowflake|neo4j(?:\+s)?):\/\/(?!\[redacted\])[^\s'"`]+/gi;
const FILE_URL = /\bfile:\/\/[^\s'"`]+/gi;
const WINDOWS_PATH = /\b[A-Za-z]:\\[^\s'"`<>|]*/g;
// Starts at a "/" that no word, dot, tilde, colon, slash or ellipsis precedes: not a URL's path
// ("host/a"), not "and/or" or "1/2", not a relative "./x", not a path scrubbed already.
const POSIX_PATH = /(?<![\w.~:/\\…-])\/[^\s'"`()<>[\]{},;:|*?]+/g;

function lastSegment(path: string, separator: string): string {
  const segments = path.split(separator).filter((segment) => segment !== '');
  return segments.at(-1) ?? '';
}
