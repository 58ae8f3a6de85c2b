import type { Command } from 'commander';
import { listLogins, logout, openTokenStore, type LoginList, type LogoutResult, type StoreSummary, type TokenStore } from '../auth/index.js';
import { setupAuthLogin } from './_auth-login.js';
import { exampleHelp } from './_help.js';
import { EXIT, invocationOf, type CliIo } from './_io.js';
import { renderTable } from './_table.js';

const STORE_HELP =
  'Logins are kept per server URL in the OS keychain when it works (the file then holds everything but the tokens and client secrets), else in a file of mode 0600: $MCPCTX_AUTH_FILE, else auth.json in $XDG_CONFIG_HOME/mcpctx (~/.config/mcpctx), ~/Library/Application Support/mcpctx or %APPDATA%\\mcpctx. MCPCTX_AUTH_STORE=file|keyring|auto chooses (default: auto).';

export function setupAuth(command: Command, io: CliIo, setExit: (code: number) => void): void {
  const auth = command
    .description(['OAuth logins to remote MCP servers: the tokens measure --url, sweep, audit and the gateway send to a server behind OAuth.', STORE_HELP].join('\n\n'))
    .addHelpText('after', exampleHelp(io, 'auth list'));
  setupAuthLogin(auth.command('login'), io, setExit);

  auth
    .command('list')
    .summary('the logins kept: server, issuer, scope, expiry (never a token)')
    .description(
      [
        'One row per login: the server (resource) URL, the authorization server (issuer), the grant, the scope granted, when the access token expires (relative and ISO; "expired" when past, which a refresh token renews at the next use), whether a refresh token is kept, and where the logins are kept. Tokens and client secrets are never printed.',
        'Exit codes: 0 listed (none is not an error); 3 the auth file cannot be read.',
      ].join('\n\n'),
    )
    .option('--json', 'print the logins as JSON')
    .addHelpText('after', exampleHelp(io, 'auth list --json'))
    .action(async (flags: { json?: boolean }) => {
      const list = await listLogins(await openStore(io));
      io.stdout.write(flags.json ? `${JSON.stringify(list, null, 2)}\n` : renderLoginList(list, Date.now(), invocationOf(io)));
      setExit(EXIT.ok);
    });

  auth
    .command('logout')
    .summary('revoke a login\'s tokens at its authorization server and forget the login')
    .description(
      [
        'Revokes the refresh token, then the access token, at the authorization server\'s revocation endpoint (RFC 7009) when it has one, within 10 seconds; a revocation that fails is reported, and the login is removed all the same (from the file and the keychain). Without a revocation endpoint the tokens stay valid at the server until they expire.',
        'URL is the server URL as logged in (a fragment is ignored).',
        'Exit codes: 0 logged out; 1 no login for URL; 2 URL is not an http(s) URL or carries user:password; 3 the store cannot be read or written.',
      ].join('\n\n'),
    )
    .argument('<url>', 'the MCP server URL of the login')
    .option('--json', 'print what was revoked and removed as JSON')
    .addHelpText('after', exampleHelp(io, 'auth logout https://mcp.example.com/mcp'))
    .action(async (url: string, flags: { json?: boolean }) => {
      const result = await logout(await openStore(io), url, { env: io.env });
      if (flags.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else if (result.found) io.stdout.write(renderLogout(result));
      if (!result.found) io.stderr.write(`mcpctx: no login for ${result.resource}; \`${invocationOf(io)} auth list\` shows the logins\n`);
      setExit(result.found ? EXIT.ok : EXIT.finding);
    });
}

function openStore(io: CliIo): Promise<TokenStore> {
  return openTokenStore({ env: io.env, onWarning: (message) => void io.stderr.write(`mcpctx: warning: ${message}\n`) });
}

export function renderLoginList(list: LoginList, now: number, invocation: string): string {
  const lines: string[] = [];
  if (list.logins.length === 0) {
    lines.push(`No logins. Log in with: ${invocation} auth login URL`);
  } else {
    const rows = list.logins.map((login) => [
      login.resource,
      login.issuer,
      login.grant,
      login.scope ?? '-',
      login.expiresAt === null ? 'not said' : `${login.expired ? 'expired' : relativeTime(Date.parse(login.expiresAt) - now)} (${login.expiresAt})`,
      login.refreshToken ? 'yes' : 'no',
    ]);
    lines.push(renderTable([{ header: 'server' }, { header: 'issuer' }, { header: 'grant' }, { header: 'scope', max: 40 }, { header: 'expires' }, { header: 'refresh' }], rows).trimEnd());
  }
  lines.push('', storeLine(list.store));
  return `${lines.join('\n')}\n`;
}

function renderLogout(result: LogoutResult): string {
  const lines = [`Logged out of ${result.resource}.`];
  if (result.revocationEndpoint === null) lines.push('  The authorization server offers no revocation endpoint: its tokens stay valid until they expire.');
  for (const revocation of result.revocations) {
    const name = revocation.token === 'refresh_token' ? 'refresh token' : 'access token';
    lines.push(revocation.outcome === 'revoked' ? `  ${name}: revoked` : `  ${name}: not revoked: ${revocation.reason ?? 'unknown'}`);
  }
  lines.push(`  ${result.deleted ? 'Removed from' : 'Was not in'} ${storeText(result.store)}.`);
  return `${lines.join('\n')}\n`;
}

function storeText(store: StoreSummary): string {
  return store.kind === 'keyring' ? `the OS keychain (other fields in ${store.file})` : store.file;
}

function storeLine(store: StoreSummary): string {
  return `Kept in ${storeText(store)}.${store.note === undefined ? '' : `\nNote: ${store.note}.`}`;
}

/** "in 59 min", "in 2 h 5 min", "in 3 d"; `ms` is positive (an expired token is said as expired). */
function relativeTime(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 1) return 'in <1 min';
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `in ${hours} h${minutes % 60 === 0 ? '' : ` ${minutes % 60} min`}`;
  return `in ${Math.floor(hours / 24)} d`;
}
