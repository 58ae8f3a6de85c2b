import { basename, isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * How the running mcpctx was started, from the script path node was given (`process.argv[1]`):
 * - the `mcpctx` bin in a project's node_modules/.bin (what `npx mcpctx` runs): `npx mcpctx`;
 * - another `mcpctx` on the PATH (a global install, `npm link`): `mcpctx`;
 * - the script itself (`node dist/cli/main.js` in a clone): `node <path>`, relative to the
 *   working directory when it lies below it, quoted when it holds characters a shell would split on.
 */
export function invocationFrom(script: string, cwd: string): string {
  if (basename(script) === 'mcpctx') return script.split(sep).includes('.bin') ? 'npx mcpctx' : 'mcpctx';
  const below = relative(cwd, script);
  return `node ${shellWord(below !== '' && !below.startsWith('..') && !isAbsolute(below) ? below : script)}`;
}

/**
 * The words that start this mcpctx from any folder, for a client's server config: a project's
 * bin by its absolute path (`npx mcpctx` only finds it inside that project), the script by its
 * absolute path, a global `mcpctx` by name.
 */
export function invocationAnywhere(script: string, cwd: string): string {
  if (basename(script) === 'mcpctx') return script.split(sep).includes('.bin') ? shellWord(resolve(cwd, script)) : 'mcpctx';
  return `node ${shellWord(resolve(cwd, script))}`;
}

/** A path as one shell word: quoted when it holds a character a shell would split on or expand. */
export function shellWord(path: string): string {
  return /^[\w./@+-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
