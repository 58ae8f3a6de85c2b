import { InvalidArgumentError, type Command } from 'commander';
import { loginWithBrowser, loginWithClientCredentials, openTokenStore, type StoredLogin, type TokenStore } from '../auth/index.js';
import { McpctxError } from '../errors/index.js';
import { isEnvName } from '../mcp/index.js';
import { printableText } from '../text/index.js';
import { exampleHelp } from './_help.js';
import { EXIT, type CliIo } from './_io.js';

interface LoginFlags {
  scope?: string;
  browser: boolean;
  timeout: number;
  clientId?: string;
  clientSecretEnv?: string;
  clientCredentials?: boolean;
  json?: boolean;
}

/** `mcpctx auth login URL`: the flags, the login, and a report that never holds a token. */
export function setupAuthLogin(command: Command, io: CliIo, setExit: (code: number) => void): void {
  command
    .description(
      [
        "Logs in to an MCP server that uses OAuth, the way the MCP authorization spec says: the server's 401 challenge and protected resource metadata (RFC 9728) name its authorization server, whose metadata (RFC 8414 or OpenID discovery) gives the endpoints; mcpctx registers itself as a client (RFC 7591) unless --client-id names one, sends your browser to log in with PKCE S256 and a random state, catches the redirect on http://127.0.0.1 (a random port), and exchanges the code for tokens bound to the server (RFC 8707 resource).",
        'The tokens are kept per server in the OS keychain when one is available, else in a file of mode 0600 under your config folder (MCPCTX_AUTH_FILE overrides it); they are renewed before they expire and after a 401, and never printed or written to measurements, receipts or logs. measure --url, sweep (auth: oauth), audit and gateway HTTP upstreams then use them.',
        'With --client-credentials (machine-to-machine, e.g. a sweep in CI) no browser is involved: the client secret is read from the variable --client-secret-env names, and only that name is stored.',
        'A server that answers 403 insufficient_scope asks for more scope: run login again (it asks for the scope the server named) or give --scope.',
      ].join('\n\n'),
    )
    .argument('<url>', "the MCP server's URL, e.g. https://mcp.example.com/mcp")
    .option('--scope <scopes>', 'scopes to ask for, space separated (default: the scope asked for before, the one granted before and the one the server\'s challenge names)')
    .option('--no-browser', 'do not start a browser: print the URL to open (default: start $BROWSER or the system browser)')
    .option('--timeout <seconds>', 'how long to wait for the browser to come back', parseSeconds, 300)
    .option('--client-id <id>', 'a client registered beforehand with the authorization server (default: register one dynamically)')
    .option('--client-secret-env <NAME>', 'the environment variable that holds that client\'s secret; only its name is stored (default: none, a public client)')
    .option('--client-credentials', 'log in as a machine with the client credentials grant: needs --client-id and --client-secret-env (default: off, a person logs in through the browser)')
    .option('--json', 'print the login (never a token) as JSON (default: a few lines of text)')
    .addHelpText('after', exampleHelp(io, 'auth login https://mcp.example.com/mcp'))
    .action(async (url: string, flags: LoginFlags) => {
      checkFlags(flags);
      const store = await openTokenStore({ env: io.env });
      const login = flags.clientCredentials
        ? await loginWithClientCredentials({
            url,
            store,
            clientId: flags.clientId as string,
            clientSecretEnv: flags.clientSecretEnv as string,
            env: io.env,
            ...(flags.scope === undefined ? {} : { scope: flags.scope }),
          })
        : (
            await loginWithBrowser({
              url,
              store,
              env: io.env,
              browser: flags.browser,
              timeoutMs: flags.timeout * 1000,
              say: (line) => io.stderr.write(`${line}\n`),
              ...(flags.scope === undefined ? {} : { scope: flags.scope }),
              ...(flags.clientId === undefined ? {} : { clientId: flags.clientId }),
              ...(flags.clientSecretEnv === undefined ? {} : { clientSecretEnv: flags.clientSecretEnv }),
            })
          ).login;
      io.stdout.write(flags.json ? `${JSON.stringify(loginReport(login, store), null, 2)}\n` : loginText(login, store));
      setExit(EXIT.ok);
    });
}

function checkFlags(flags: LoginFlags): void {
  if (flags.clientSecretEnv !== undefined && !isEnvName(flags.clientSecretEnv)) {
    throw new McpctxError('USAGE', '--client-secret-env takes the NAME of the variable that holds the secret (letters, digits and _), never the secret itself', {});
  }
  if (flags.clientCredentials && (flags.clientId === undefined || flags.clientSecretEnv === undefined)) {
    throw new McpctxError('USAGE', '--client-credentials needs --client-id ID and --client-secret-env NAME (the variable holding the secret)', {});
  }
  if (flags.clientSecretEnv !== undefined && flags.clientId === undefined) {
    throw new McpctxError('USAGE', '--client-secret-env goes with --client-id: the secret of a client registered beforehand', {});
  }
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600) throw new InvalidArgumentError(`expected whole seconds from 1 to 3600, got "${value}"`);
  return seconds;
}

/** What a login report may say: everything but the tokens and the client secret. */
function loginReport(login: StoredLogin, store: TokenStore): Record<string, unknown> {
  return {
    resource: login.resource,
    issuer: login.issuer,
    grant: login.grant,
    clientId: login.client.clientId,
    clientRegistration: login.client.registration,
    scope: login.scope ?? null,
    expiresAt: login.tokens.expiresAt === undefined ? null : new Date(login.tokens.expiresAt).toISOString(),
    refreshToken: login.tokens.refreshToken !== undefined,
    store: { kind: store.kind, file: store.file, ...(store.note === undefined ? {} : { note: store.note }) },
  };
}

function loginText(login: StoredLogin, store: TokenStore): string {
  const expires = login.tokens.expiresAt === undefined ? 'no expiry given' : `expires ${new Date(login.tokens.expiresAt).toISOString()}`;
  const lines = [
    `logged in to ${login.resource}`,
    `  authorization server ${login.issuer} (${login.grant === 'client_credentials' ? 'client credentials' : 'browser login'}, client ${login.client.clientId})`,
    `  scope ${login.scope ?? '(none named)'}; ${expires}; ${login.tokens.refreshToken === undefined ? 'no refresh token' : 'refresh token kept'}`,
    `  kept in ${store.kind === 'keyring' ? `the OS keychain (index in ${store.file})` : `${store.file} (mode 0600)`}`,
  ];
  if (store.note !== undefined) lines.push(`  note: ${store.note}`);
  return `${lines.map((line) => printableText(line, 'note')).join('\n')}\n`;
}
