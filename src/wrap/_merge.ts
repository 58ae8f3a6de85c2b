/**
 * `unwrap --merge`: the client file changed since wrap (Claude Code rewrites ~/.claude.json on
 * every start), so the backup cannot simply go back. Instead the current file is edited: the
 * gateway entry out, the fronted entries back in from the backup (at the map's end, in their
 * order), every other byte of the current file kept by the same splicing editor wrap used. The
 * result must parse to the current document with exactly that change, or nothing is written.
 */
import { isDeepStrictEqual } from 'node:util';
import type { WrapManifest } from '../audit/index.js';
import { isPlainObject, type JsonObject } from '../json/index.js';
import { plainValue, spliceServerMap } from './_client-edit.js';
import type { ServerMapEdit } from './_edit-types.js';
import { parseClientDocument, rawServers } from './_raw-entry.js';

/** The document with its server map replaced, for the check. */
function withServers(document: JsonObject, serversAt: readonly string[], servers: JsonObject): JsonObject {
  const copy = structuredClone(document);
  let node: JsonObject = copy;
  for (const key of serversAt.slice(0, -1)) {
    const next = node[key];
    if (!isPlainObject(next)) return copy;
    node = next;
  }
  const last = serversAt.at(-1);
  if (last !== undefined) node[last] = servers;
  return copy;
}

export function mergedText(manifest: WrapManifest, currentText: string, backupText: string): { text: string } | { refused: string } {
  const bom = currentText.startsWith('\uFEFF') ? '\uFEFF' : '';
  let text = currentText.slice(bom.length);
  const current = parseClientDocument(text, manifest.format);
  const backup = parseClientDocument(backupText, manifest.format);
  if (current === undefined || backup === undefined) return { refused: `${current === undefined ? manifest.path : manifest.backup} does not parse as ${manifest.format}` };
  const currentServers = rawServers(current, manifest.serversAt);
  const backupServers = rawServers(backup, manifest.serversAt);
  if (!currentServers.has(manifest.gatewayEntry)) return { refused: `the ${manifest.gatewayEntry} entry is no longer in ${manifest.path}` };
  const taken = manifest.fronted.filter((name) => currentServers.has(name));
  if (taken.length > 0) return { refused: `${manifest.path} has entries named ${taken.join(', ')} again; merge by hand` };
  const missing = manifest.fronted.filter((name) => !backupServers.has(name));
  if (missing.length > 0) return { refused: `the backup holds no ${missing.join(', ')}` };

  for (const [index, name] of manifest.fronted.entries()) {
    const edit: ServerMapEdit = { serversAt: manifest.serversAt, remove: index === 0 ? [manifest.gatewayEntry] : [], addName: name, addValue: backupServers.get(name) as JsonObject };
    const spliced = spliceServerMap(text, manifest.format, edit);
    if ('refused' in spliced) return spliced;
    text = spliced.text;
  }

  const expectedServers: JsonObject = {};
  for (const [name, entry] of currentServers) if (name !== manifest.gatewayEntry) expectedServers[name] = entry;
  for (const name of manifest.fronted) expectedServers[name] = backupServers.get(name) as JsonObject;
  const merged = parseClientDocument(text, manifest.format);
  if (merged === undefined || !isDeepStrictEqual(plainValue(merged), plainValue(withServers(current, manifest.serversAt, expectedServers)))) {
    return { refused: 'the merged file would not read as the current one with the entries put back; merge by hand' };
  }
  return { text: bom + text };
}
