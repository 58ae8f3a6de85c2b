/**
 * `gateway unwrap`: puts the client file back byte for byte from the backup, only when the file is
 * still exactly what wrap wrote; otherwise it refuses and says where the fronted entries are and
 * what changed, so the user merges by hand.
 */
import { redact, unifiedDiff } from '../text/index.js';
import { readFile, realpath, stat } from 'node:fs/promises';
import { readClientSession, readWrapManifest, resolveRoots, wrapManifestPath, type WrapManifest } from '../audit/index.js';
import { editClientText } from './_client-edit.js';
import { removeQuietly, replaceAtomically, sha256 } from './_files.js';
import { mergedText } from './_merge.js';
import { documentSecrets, parseClientDocument } from './_raw-entry.js';
import { isWrapClient } from './_plan.js';
import { WRAP_CLIENTS, type WrapOptions, type WrapRefusal } from './_types.js';

export interface UnwrapResult {
  client: string;
  scope: string;
  path: string;
  /** True: the backup went back byte for byte. False: merged (--merge) into a file that changed since. */
  restored: boolean;
  removed: string[];
}

function keyPathText(path: readonly string[]): string {
  return path.map((key) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : JSON.stringify(key))).join('.');
}

type ManifestFields = WrapManifest & { gatewayLaunch?: { command: string; args: string[] } };

/** What wrap wrote, rebuilt from the backup with the same edit (checked against the manifest's hash). */
function wrappedTextOf(manifest: ManifestFields, backupText: string): string | undefined {
  if (manifest.gatewayLaunch === undefined || !isWrapClient(manifest.client)) return undefined;
  const edited = editClientText(backupText, {
    client: manifest.client,
    format: manifest.format,
    serversAt: manifest.serversAt,
    remove: manifest.fronted,
    add: { name: manifest.gatewayEntry, command: manifest.gatewayLaunch.command, args: manifest.gatewayLaunch.args },
  });
  if ('refused' in edited) return undefined;
  const text = edited.text;
  return sha256(Buffer.from(text, 'utf8')) === manifest.wrappedSha256 ? text : undefined;
}

export async function unwrap(options: Pick<WrapOptions, 'client' | 'scope' | 'roots'> & { merge?: boolean }): Promise<UnwrapResult | WrapRefusal> {
  if (!isWrapClient(options.client)) return { refused: `unknown client "${options.client}"; unwrap takes: ${WRAP_CLIENTS.join(', ')}`, kind: 'usage' };
  const roots = resolveRoots(options.roots);
  const places = (await readClientSession(roots, options.client)).places.filter((place) => options.scope === undefined || place.scope === options.scope);
  const found: ManifestFields[] = [];
  for (const place of places) {
    const manifest = await readWrapManifest(place.path);
    if (manifest === undefined) continue;
    if ('problem' in manifest) return { refused: manifest.problem, kind: 'io' };
    if (manifest.scope === place.scope && !found.some((item) => item.path === manifest.path)) found.push(manifest);
  }
  if (found.length === 0) return { refused: `${options.client}${options.scope === undefined ? '' : ` (${options.scope})`} is not wrapped: no .mcpctx-wrap.json manifest beside its config files`, kind: 'state' };
  if (found.length > 1) return { refused: `${options.client} has ${found.length} wrapped files; say which with ${found.map((item) => `--scope ${item.scope}`).join(' or ')}`, kind: 'usage' };
  const manifest = found[0] as ManifestFields;
  const target = await realpath(manifest.path).catch(() => manifest.path);
  const [current, backup] = await Promise.all([readFile(target).catch(() => undefined), readFile(manifest.backup).catch(() => undefined)]);
  if (backup === undefined) return { refused: `the backup ${manifest.backup} cannot be read; ${manifest.path} is left as it is`, kind: 'io' };
  if (sha256(backup) !== manifest.originalSha256) return { refused: `the backup ${manifest.backup} is not the file wrap saved (its sha256 differs); ${manifest.path} is left as it is`, kind: 'state' };
  if (current === undefined) return { refused: `${manifest.path} cannot be read; the original is in ${manifest.backup}`, kind: 'io' };
  const removed = [manifest.backup, wrapManifestPath(manifest.path), manifest.gatewayConfig];
  if (sha256(current) !== manifest.wrappedSha256 && options.merge === true) {
    const merged = mergedText(manifest, current.toString('utf8'), backup.toString('utf8'));
    if ('refused' in merged) return { refused: `${manifest.path} changed since wrap and cannot be merged: ${merged.refused}; the fronted entries are in ${manifest.backup}`, kind: 'state' };
    await replaceAtomically(target, merged.text);
    for (const path of removed) await removeQuietly(path);
    return { client: manifest.client, scope: manifest.scope, path: manifest.path, restored: false, removed };
  }
  if (sha256(current) !== manifest.wrappedSha256) {
    const backupText = backup.toString('utf8');
    const wrapped = wrappedTextOf(manifest, backupText);
    // Both files' values: entries added since hold secrets of their own.
    const secrets = [backupText, current.toString('utf8')].flatMap((text) => {
      const document = parseClientDocument(text, manifest.format);
      return document === undefined ? [] : documentSecrets(document);
    });
    const refusal: WrapRefusal = {
      refused: [
        `${manifest.path} changed since wrap, so it is not replaced.`,
        `The fronted entries (${manifest.fronted.join(', ')}) are in the backup ${manifest.backup} under ${keyPathText(manifest.serversAt)}: run unwrap again with --merge to put them back into the file as it is now, or copy them back by hand, remove the ${manifest.gatewayEntry} entry, then delete ${manifest.backup}, ${wrapManifestPath(manifest.path)} and ${manifest.gatewayConfig}.`,
      ].join('\n'),
      kind: 'state',
    };
    if (wrapped !== undefined) refusal.diff = redact(unifiedDiff(wrapped, current.toString('utf8'), { before: `${manifest.path} (as wrapped)`, after: `${manifest.path} (now)` }), secrets);
    return refusal;
  }
  const { mode } = await stat(manifest.backup);
  await replaceAtomically(target, backup, mode & 0o7777);
  for (const path of removed) await removeQuietly(path);
  return { client: manifest.client, scope: manifest.scope, path: manifest.path, restored: true, removed };
}
