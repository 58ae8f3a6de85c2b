/** How to start a server over stdio. */
export interface LaunchSpec {
  command: string;
  args?: readonly string[];
  cwd?: string;
  /** Variables given to the server on top of the minimal base environment. */
  env?: Readonly<Record<string, string>>;
  /** Pass the caller's whole environment instead of the minimal base. Off unless asked. */
  inheritEnv?: boolean;
}

/** The only variables a server gets from the caller's environment by default. */
export const BASE_ENV_NAMES = Object.freeze(['PATH', 'HOME', 'USER', 'SHELL', 'TERM', 'LANG'] as const);

/**
 * The environment a launched server sees: the minimal base taken from `parentEnv`
 * (or all of it with `inheritEnv`), then the spec's own variables on top.
 */
export function childEnvironment(
  spec: Pick<LaunchSpec, 'env' | 'inheritEnv'>,
  parentEnv: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  const names = spec.inheritEnv ? Object.keys(parentEnv) : BASE_ENV_NAMES;
  for (const name of names) {
    const value = parentEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...spec.env };
}

/** A variable name a launch spec may set: letters, digits and `_`, not starting with a digit. */
export function isEnvName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

/** Names of the variables the caller passed, sorted: what may be recorded (never values). */
export function passedEnvNames(spec: Pick<LaunchSpec, 'env'>): string[] {
  return Object.keys(spec.env ?? {}).sort();
}
