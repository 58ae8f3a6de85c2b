/**
 * The receipt on disk: created before any input is read, rewritten whole after every stage, each
 * time through a temporary file renamed over it, so a reader (or a crash) never meets half a file.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { RECEIPT_FORMAT, type ExperimentReceipt, type StageName } from './_types.js';

export const RECEIPT_FILE = 'receipt.json';
export const REPORT_FILE = 'report.md';

const WARNING =
  'Private run record: it holds the questions, the records the servers returned, tool arguments and the model\u2019s answers. ' +
  'API keys and server env values are never written to it. Review it before publishing.';

export class ReceiptWriter {
  readonly file: string;
  readonly receipt: ExperimentReceipt;
  private readonly now: () => Date;

  private constructor(file: string, now: () => Date) {
    this.file = file;
    this.now = now;
    const at = now().toISOString();
    this.receipt = { format: RECEIPT_FORMAT, warning: WARNING, status: 'starting', startedAt: at, updatedAt: at, stages: [], errors: [], questions: [] };
  }

  /**
   * Creates `outDir` (and its parents) and the first receipt in it. A folder that already holds
   * a receipt is OUTPUT_CONFLICT unless `overwrite`: one folder, one run.
   */
  static create(outDir: string, options: { overwrite?: boolean; now?: () => Date } = {}): ReceiptWriter {
    const dir = resolve(outDir);
    const file = join(dir, RECEIPT_FILE);
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw new McpctxError('IO', `Cannot create the output folder ${dir}: ${(error as Error).message}`, { file: dir }, { cause: error });
    }
    if (existsSync(file) && options.overwrite !== true) {
      throw new McpctxError('OUTPUT_CONFLICT', `${file} already exists: choose another --out folder, or pass --force to replace that run`, { file });
    }
    const writer = new ReceiptWriter(file, options.now ?? (() => new Date()));
    writer.persist();
    return writer;
  }

  /** Writes the receipt as it stands now. */
  persist(): void {
    this.receipt.updatedAt = this.now().toISOString();
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(this.receipt, null, 2)}\n`);
      renameSync(temporary, this.file);
    } catch (error) {
      throw new McpctxError('IO', `Cannot write the receipt ${this.file}: ${(error as Error).message}`, { file: this.file }, { cause: error });
    }
  }

  stageDone(stage: StageName): void {
    this.receipt.stages.push({ stage, status: 'ok', at: this.now().toISOString() });
    this.persist();
  }

  /** Records a stage's failure (and the run's), then persists. */
  stageFailed(stage: StageName, error: { code: string; message: string }): void {
    const at = this.now().toISOString();
    this.receipt.stages.push({ stage, status: 'failed', at, error: { code: error.code, message: error.message } });
    this.receipt.errors.push({ at, stage, code: error.code, message: error.message });
    this.receipt.status = 'failed';
    this.persist();
  }

  /** Removes a file beside the receipt, if there (an export a rerun into the same folder no longer has). */
  removeBeside(name: string): void {
    rmSync(join(resolve(this.file, '..'), name), { force: true });
  }

  /** Writes a file beside the receipt (the markdown report). */
  writeBeside(name: string, text: string): string {
    const file = join(resolve(this.file, '..'), name);
    try {
      writeFileSync(file, text);
    } catch (error) {
      throw new McpctxError('IO', `Cannot write ${file}: ${(error as Error).message}`, { file }, { cause: error });
    }
    return file;
  }
}
