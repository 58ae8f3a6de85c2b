import { EXPANSION, expansionName } from '../../config/index.js';
import { McpctxError } from '../../errors/index.js';
import { isEnvName } from '../../mcp/index.js';
import type { ResolvedUpstream, UpstreamSpec } from './_config-types.js';
import { ownValue, setOwn } from '../../json/index.js';

/**
 * `${...}` references as the clients write them: `${NAME}` and `${env:NAME}` (VS Code, Cursor,
 * Windsurf) and `${NAME:-default}` (Claude Code) read the gateway's environment at start;
 * `${workspaceFolder}` and `${userHome}` are filled in when the config is read (`fillFolders`);
 * `${input:ID}` is a value VS Code asks its user for, which the gateway cannot.
 */
type Reference =
  | { readonly kind: 'env'; readonly name: string; readonly fallback: string | undefined }
  | { readonly kind: 'input'; readonly id: string }
  | { readonly kind: 'invalid' };

function readReference(inside: string): Reference {
  if (inside.startsWith('input:')) return { kind: 'input', id: inside.slice('input:'.length) };
  const { name, fallback } = expansionName(inside);
  return isEnvName(name) ? { kind: 'env', name, fallback } : { kind: 'invalid' };
}

/** Why a template is malformed (a `${...}` that names no variable, an unclosed `${`), or undefined. */
export function templateProblem(template: string): string | undefined {
  // The text is never echoed: a header template may hold the very secret that does not belong here.
  for (const [, inside] of template.matchAll(EXPANSION)) {
    if (readReference(inside ?? '').kind === 'invalid') {
      return 'has a ${...} that names no variable; write ${NAME} or ${NAME:-default} with letters, digits and _ (not starting with a digit)';
    }
  }
  if (template.replace(EXPANSION, '').includes('${')) return 'has a "${" that is never closed; write ${NAME}';
  return undefined;
}

/** The `${input:ID}` a template holds, if any: a prompt of VS Code's that the gateway cannot answer. */
export function inputReference(template: string): string | undefined {
  for (const [, inside] of template.matchAll(EXPANSION)) {
    const reference = readReference(inside ?? '');
    if (reference.kind === 'input') return reference.id;
  }
  return undefined;
}

/** `${workspaceFolder}` and `${userHome}` (VS Code's and Cursor's) replaced by the folders they name. */
export function fillFolders(template: string, folders: { readonly workspaceFolder: string; readonly userHome: string }): string {
  return template.replace(EXPANSION, (whole, inside: string) => {
    const name = inside.trim();
    return name === 'workspaceFolder' ? folders.workspaceFolder : name === 'userHome' ? folders.userHome : whole;
  });
}

/** The variables a template needs set (references without a default), in order of first use. */
export function requiredNames(template: string): string[] {
  const names: string[] = [];
  for (const [, inside] of template.matchAll(EXPANSION)) {
    const reference = readReference(inside ?? '');
    if (reference.kind === 'env' && reference.fallback === undefined && !names.includes(reference.name)) names.push(reference.name);
  }
  return names;
}

interface Missing {
  readonly variable: string;
  readonly usedBy: string;
}

/**
 * Fills every variable reference from `env`; anything else (`${1}` in an argument) stays as
 * written. `${NAME:-default}` is the default when NAME is unset or empty, as in a shell.
 */
function expand(template: string, env: NodeJS.ProcessEnv, usedBy: string, missing: Missing[], emptyIsMissing: boolean): string {
  return template.replace(EXPANSION, (whole, inside: string) => {
    const reference = readReference(inside);
    if (reference.kind !== 'env') return whole;
    const value = ownValue(env, reference.name);
    if (reference.fallback !== undefined) return value === undefined || value === '' ? reference.fallback : value;
    if (value === undefined || (emptyIsMissing && value === '')) {
      missing.push({ variable: reference.name, usedBy });
      return '';
    }
    return value;
  });
}

/**
 * Expands the variable references in a stdio upstream's command, args and env values, and in an
 * HTTP upstream's url and headers, from `env` (the gateway's own environment at start). A missing
 * variable is INVALID_CONFIG naming every missing variable and where it is used, never a value.
 * An empty variable counts as missing in a header (an empty credential is never meant), and as
 * the empty string elsewhere.
 */
export function resolveUpstream(spec: UpstreamSpec, env: NodeJS.ProcessEnv): ResolvedUpstream {
  const missing: Missing[] = [];
  let resolved: ResolvedUpstream;
  if (spec.kind === 'stdio') {
    const { command, args, env: given } = spec.launch;
    const expanded =
      given === undefined ? undefined : Object.fromEntries(Object.entries(given).map(([name, value]) => [name, expand(value, env, `env ${name}`, missing, false)]));
    resolved = {
      ...spec,
      launch: {
        ...spec.launch,
        command: expand(command, env, 'command', missing, false),
        args: (args ?? []).map((arg, index) => expand(arg, env, `args[${index}]`, missing, false)),
        ...(expanded === undefined ? {} : { env: expanded }),
      },
    };
  } else {
    const resolvedHeaders: Record<string, string> = {};
    for (const [name, template] of Object.entries(spec.headers)) {
      const value = expand(template, env, `header ${name}`, missing, true);
      // A line break in a header value would start another header (or the body).
      if (/[\r\n\0]/.test(value)) {
        throw new McpctxError('INVALID_CONFIG', `upstream ${spec.name}: header ${name} would contain a line break from its environment variables; fix the variable's value.`, {
          upstream: spec.name,
          header: name,
        });
      }
      setOwn(resolvedHeaders, name, value);
    }
    resolved = { ...spec, url: expandUrl(spec, env, missing), resolvedHeaders };
  }
  if (missing.length > 0) {
    const variables = [...new Set(missing.map(({ variable }) => variable))];
    const uses = missing.map(({ variable, usedBy }) => `${variable} (${usedBy})`).join(', ');
    throw new McpctxError(
      'INVALID_CONFIG',
      `upstream ${spec.name}: environment variable${variables.length === 1 ? '' : 's'} not set: ${uses}. Set ${variables.length === 1 ? 'it' : 'them'} in the gateway's environment before starting it, or write \${NAME:-default}.`,
      { upstream: spec.name, missing: variables },
    );
  }
  return resolved;
}

/** The url with its variables filled in, checked again: what the variables held is only known now. */
function expandUrl(spec: Extract<UpstreamSpec, { kind: 'http' }>, env: NodeJS.ProcessEnv, missing: Missing[]): string {
  if (!spec.url.includes('${')) return spec.url;
  const before = missing.length;
  const url = expand(spec.url, env, 'url', missing, true);
  if (missing.length > before) return url;
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    // Not echoed: the variables may hold a credential.
    throw new McpctxError('INVALID_CONFIG', `upstream ${spec.name}: its url is not an http:// or https:// URL once its environment variables are filled in; fix their values.`, {
      upstream: spec.name,
    });
  }
  return url;
}
