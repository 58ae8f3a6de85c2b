/**
 * Carrying out a wrap plan: the backup (exclusive: one that exists means already wrapped), the
 * gateway config (0600, it holds env values), the manifest, then the client file replaced
 * atomically. Any failure removes what this run wrote, in reverse; the client file is replaced
 * last, so until then it is untouched.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { PRIVATE_FILE_MODE } from '../private-file/index.js';
import { WRAP_METHOD, type WrapManifest } from '../audit/index.js';
import { copyExclusive, removeQuietly, replaceAtomically, sha256, writeExclusive } from './_files.js';
import type { WrapPlan, WrapRefusal } from './_types.js';

export interface WrapManifestFile extends WrapManifest {
  gatewayLaunch: { command: string; args: string[] };
  notFronted: WrapPlan['notFronted'];
}

export function manifestOf(plan: WrapPlan, date: Date): WrapManifestFile {
  return {
    method: WRAP_METHOD,
    client: plan.client,
    scope: plan.scope,
    path: plan.path,
    format: plan.format,
    serversAt: plan.serversAt,
    backup: plan.backupPath,
    originalSha256: plan.originalSha256,
    wrappedSha256: plan.wrappedSha256,
    gatewayConfig: plan.gatewayConfigPath,
    gatewayEntry: plan.gatewayEntry,
    gatewayLaunch: plan.gatewayLaunch,
    fronted: plan.fronted.map((server) => server.name),
    notFronted: plan.notFronted,
    date: date.toISOString(),
  };
}

function ioError(step: string, error: unknown): McpctxError {
  return new McpctxError('IO', `wrap stopped at ${step}: ${(error as Error).message}; what it had written is removed and the client file is as it was`, { step }, { cause: error });
}

export async function applyWrap(plan: WrapPlan, now: Date = new Date()): Promise<{ manifest: WrapManifestFile } | WrapRefusal> {
  const current = await readFile(plan.target).catch(() => undefined);
  if (current === undefined || sha256(current) !== plan.originalSha256) return { refused: `${plan.path} changed while the wrap was planned; run it again`, kind: 'state' };
  const written: string[] = [];
  let step = 'the backup';
  try {
    try {
      await copyExclusive(plan.target, plan.backupPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { refused: `${plan.backupPath} exists: ${plan.path} is already wrapped`, kind: 'state' };
      throw error;
    }
    written.push(plan.backupPath);
    step = 'the gateway config';
    await mkdir(dirname(plan.gatewayConfigPath), { recursive: true, mode: 0o700 });
    try {
      await writeExclusive(plan.gatewayConfigPath, plan.gatewayText, PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        await removeQuietly(plan.backupPath);
        return { refused: `${plan.gatewayConfigPath} exists (from an earlier wrap?); remove it or unwrap first`, kind: 'state' };
      }
      throw error;
    }
    written.push(plan.gatewayConfigPath);
    step = 'the manifest';
    const manifest = manifestOf(plan, now);
    await writeExclusive(plan.manifestPath, `${JSON.stringify(manifest, null, 2)}\n`, 0o644);
    written.push(plan.manifestPath);
    step = 'the client file';
    await replaceAtomically(plan.target, plan.wrappedText);
    return { manifest };
  } catch (error) {
    for (const path of written.reverse()) await removeQuietly(path);
    throw ioError(step, error);
  }
}
