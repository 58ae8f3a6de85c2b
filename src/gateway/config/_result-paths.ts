import { McpctxError } from '../../errors/index.js';

// The path syntax of read_result's `path` and of a tool's `records` rule: the config checks a
// path when it is read, the results follow it when a result comes (kept here, light, so a config
// loads without the result store and its query engine).
export const PATH_SYNTAX = 'a dotted path with bracketed indexes, like items[3].title or $.items[0] (quote odd keys: meta["x.y"])';

export const MAX_PATH_CHARS = 1000;
export const PATH_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*/;

/** The keys and indexes of `path`; INVALID_ARGUMENT with the accepted syntax otherwise. */
export function parsePath(path: string): Array<string | number> {
  if (path.length > MAX_PATH_CHARS) throw badPath(path, `it is longer than ${MAX_PATH_CHARS} characters`);
  if (path.startsWith('/')) {
    const dotted = path
      .split('/')
      .slice(1)
      .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'))
      .map((key, index) => (/^(0|[1-9]\d*)$/.test(key) ? `[${key}]` : PATH_IDENTIFIER.exec(key)?.[0] === key ? `${index === 0 ? '' : '.'}${key}` : `[${JSON.stringify(key)}]`))
      .join('');
    throw badPath(path, `JSON pointers are not accepted; the same place is ${JSON.stringify(dotted || '$')}`);
  }
  let rest = path.startsWith('$') ? path.slice(1) : path;
  const steps: Array<string | number> = [];
  let first = !path.startsWith('$');
  while (rest.length > 0) {
    if (rest.startsWith('..')) throw badPath(path, 'recursive descent (..) is a query: use query instead of path');
    if (rest.startsWith('[')) {
      const index = /^\[(0|[1-9]\d{0,8})\]/.exec(rest);
      if (index !== null) {
        steps.push(Number(index[1]));
        rest = rest.slice(index[0].length);
      } else {
        const quoted = /^\["((?:[^"\\]|\\.)*)"\]/.exec(rest);
        if (quoted === null) throw badPath(path, `"${rest.slice(0, 12)}" is not an index ([3]) or a quoted key (["a.b"]); wildcards, slices, filters and negative indexes are queries: use query`);
        steps.push(JSON.parse(`"${quoted[1] ?? ''}"`) as string);
        rest = rest.slice(quoted[0].length);
      }
    } else {
      if (rest.startsWith('.')) rest = rest.slice(1);
      else if (!first) throw badPath(path, `expected "." or "[" before "${rest.slice(0, 12)}"`);
      const key = PATH_IDENTIFIER.exec(rest);
      if (key === null) throw badPath(path, `"${rest.slice(0, 12)}" is not a key; quote keys that are not identifiers (["a b"]), and use query for wildcards`);
      steps.push(key[0]);
      rest = rest.slice(key[0].length);
    }
    first = false;
  }
  return steps;
}

function badPath(path: string, why: string): McpctxError {
  return new McpctxError('INVALID_ARGUMENT', `Invalid path ${JSON.stringify(path.slice(0, 80))}: ${why}. A path is ${PATH_SYNTAX}.`);
}
