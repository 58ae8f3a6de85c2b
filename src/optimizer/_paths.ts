/**
 * One spelling per file path, for comparing and merging: `src\a.ts`, `./src/a.ts`,
 * `src/b/../a.ts` and `src//a.ts` are all `src/a.ts`. Purely textual (no file system): `.` segments
 * go, `..` removes the folder before it, and a `..` with no folder before it is kept (`../x`
 * stays, `/..` at the root is dropped). A leading `/`, a drive (`C:/`) and a UNC start (`//host`)
 * are kept; a trailing `/` is not. Case is kept: whether `A.ts` is `a.ts` depends on the disk.
 */
export function normalizePath(path: string): string {
  const slashed = path.trim().replace(/\\/g, '/');
  const unc = slashed.startsWith('//') && !slashed.startsWith('///');
  const drive = /^[A-Za-z]:(?=\/|$)/.exec(slashed)?.[0] ?? '';
  const rest = slashed.slice(drive.length);
  const rooted = rest.startsWith('/');
  const segments: string[] = [];
  for (const segment of rest.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      const last = segments[segments.length - 1];
      if (last !== undefined && last !== '..') segments.pop();
      else if (!rooted) segments.push('..');
      continue;
    }
    segments.push(segment);
  }
  const start = unc ? '//' : rooted ? '/' : '';
  const joined = `${drive}${start}${segments.join('/')}`;
  return joined === '' ? (rooted ? '/' : '.') : joined;
}
