import { McpctxError } from '../../errors/index.js';
import { isEnvName } from '../../mcp/index.js';
import type { ResolvedUpstream, UpstreamSpec } from './_config-types.js';
import { ownValue, setOwn } from '../../json/index.js';

const REFERENCE = /\$\{([^}]*)\}/g;

/** Why a template is malformed (a `${...}` that names no variable, an unclosed `${`), or undefined. */
export function templateProblem(template: string): string | undefined {
  // The text is never echoed: a header template may hold the very secret that does not belong here.
  for (const [, name] of template.matchAll(REFERENCE)) {
    if (name === undefined || !isEnvName(name)) {
      return 'has a ${...} that names no variable; write ${NAME} with letters, digits and _ (not starting with a digit)';
    }
  }
  if (template.replace(REFERENCE, '').includes('${')) return 'has a "${" that is never closed; write ${NAME}';
  return undefined;
}

/** The variable names a template references, in order of first use. */
export function referencedNames(template: string): string[] {
  return [...new Set([...template.matchAll(REFERENCE)].map((match) => match[1] ?? ''))];
}

interface Missing {
  readonly variable: string;
  readonly usedBy: string;
}

function expand(template: string, env: NodeJS.ProcessEnv, usedBy: string, missing: Missing[], emptyIsMissing: boolean): string {
  return template.replace(REFERENCE, (_whole, name: string) => {
    const value = ownValue(env, name);
    if (value === undefined || (emptyIsMissing && value === '')) {
      missing.push({ variable: name, usedBy });
      return '';
    }
    return value;
  });
}

/**
 * Expands `${NAME}` in a stdio upstream's env values and an HTTP upstream's headers from `env`
 * (the gateway's own environment at start). A missing variable is INVALID_CONFIG naming every
 * missing variable and where it is used, never a value. An empty variable counts as missing in a
 * header (an empty credential is never meant), and as the empty string in an env value.
 */
export function resolveUpstream(spec: UpstreamSpec, env: NodeJS.ProcessEnv): ResolvedUpstream {
  const missing: Missing[] = [];
  let resolved: ResolvedUpstream;
  if (spec.kind === 'stdio') {
    const given = spec.launch.env;
    const expanded =
      given === undefined ? undefined : Object.fromEntries(Object.entries(given).map(([name, value]) => [name, expand(value, env, `env ${name}`, missing, false)]));
    resolved = { ...spec, launch: { ...spec.launch, ...(expanded === undefined ? {} : { env: expanded }) } };
  } else {
    const resolvedHeaders: Record<string, string> = {};
    for (const [name, template] of Object.entries(spec.headers)) {
      const value = expand(template, env, `header ${name}`, missing, true);
      // A line break in a header value would start another header (or the body).
      if (/[\r\n\0]/.test(value)) {
        throw new McpctxError('INVALID_CONFIG', `server "${spec.name}": header ${name} would contain a line break from its environment variables; fix the variable's value.`, {
          upstream: spec.name,
          header: name,
        });
      }
      setOwn(resolvedHeaders, name, value);
    }
    resolved = { ...spec, resolvedHeaders };
  }
  if (missing.length > 0) {
    const variables = [...new Set(missing.map(({ variable }) => variable))];
    const uses = missing.map(({ variable, usedBy }) => `${variable} (${usedBy})`).join(', ');
    throw new McpctxError(
      'INVALID_CONFIG',
      `server "${spec.name}": environment variable${variables.length === 1 ? '' : 's'} not set: ${uses}. Set ${variables.length === 1 ? 'it' : 'them'} in the gateway's environment before starting it.`,
      { upstream: spec.name, missing: variables },
    );
  }
  return resolved;
}
