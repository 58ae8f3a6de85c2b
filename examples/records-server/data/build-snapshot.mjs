#!/usr/bin/env node
// @ts-check
// Derives snapshot.json (flat string records) from the recorded GitHub issues of PyGithub/PyGithub.
//
//   node examples/records-server/data/build-snapshot.mjs           write snapshot.json next to this file
//   node examples/records-server/data/build-snapshot.mjs --check   exit 1 if snapshot.json differs
//
// Input (default): test/fixtures/github-pulls-issues/pygithub/PyGithub_PyGithub_issues_page1.body.json
// (pass another path as the first non-flag argument). Deterministic: same input, same bytes.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The longest value the server accepts by default (FrozenRecords' maxFieldChars). */
const MAX_FIELD_CHARS = 10_000;

const DEFAULT_INPUT = fileURLToPath(
  new URL('../../../test/fixtures/github-pulls-issues/pygithub/PyGithub_PyGithub_issues_page1.body.json', import.meta.url),
);
const OUTPUT = fileURLToPath(new URL('./snapshot.json', import.meta.url));

/**
 * @param {unknown} value
 * @returns {string}
 */
function text(value) {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') throw new Error(`expected a string or null, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * One GitHub issue (REST, 2024 schema) as a flat record of strings.
 * @param {any} issue
 * @param {string[]} capped ids whose body was cut to MAX_FIELD_CHARS
 * @returns {Record<string, string>}
 */
function flatten(issue, capped) {
  const id = String(issue.number);
  let body = text(issue.body);
  if (body.length > MAX_FIELD_CHARS) {
    capped.push(id);
    // Do not split a surrogate pair.
    const end = /[\uD800-\uDBFF]/.test(body.charAt(MAX_FIELD_CHARS - 1)) ? MAX_FIELD_CHARS - 1 : MAX_FIELD_CHARS;
    body = body.slice(0, end);
  }
  return {
    id,
    revision: text(issue.updated_at),
    title: text(issue.title),
    state: text(issue.state),
    state_reason: text(issue.state_reason),
    author: text(issue.user?.login),
    labels: (issue.labels ?? []).map((/** @type {{ name: string }} */ label) => label.name).join(','),
    comments: String(issue.comments),
    is_pull_request: issue.pull_request === undefined || issue.pull_request === null ? 'false' : 'true',
    created_at: text(issue.created_at),
    updated_at: text(issue.updated_at),
    closed_at: text(issue.closed_at),
    body,
  };
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const input = args.find((arg) => !arg.startsWith('--')) ?? DEFAULT_INPUT;
const inputBytes = readFileSync(input);
const issues = JSON.parse(inputBytes.toString('utf8'));
if (!Array.isArray(issues)) throw new Error(`${input}: expected a JSON array of issues`);
/** @type {string[]} */
const capped = [];
const records = issues.map((issue) => flatten(issue, capped));
const output = `${JSON.stringify(records, null, 2)}\n`;
const sha256 = (/** @type {string | Buffer} */ bytes) => createHash('sha256').update(bytes).digest('hex');
const shown = (/** @type {string} */ path) => relative(process.cwd(), path) || path;

if (check) {
  const current = readFileSync(OUTPUT, 'utf8');
  if (current !== output) {
    process.stderr.write(`${shown(OUTPUT)} is not what ${shown(input)} derives to; run this script without --check.\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`${shown(OUTPUT)} is up to date (sha256 ${sha256(output)}).\n`);
  }
} else {
  writeFileSync(OUTPUT, output);
  process.stdout.write(
    `input  ${sha256(inputBytes)}  ${shown(input)}\n` +
      `output ${sha256(output)}  ${shown(OUTPUT)}\n` +
      `${records.length} records; bodies capped to ${MAX_FIELD_CHARS} characters: ${capped.length === 0 ? 'none' : capped.join(', ')}\n`,
  );
}
