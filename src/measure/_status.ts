import { isPlainObject, nestsDeeperThan } from '../json/index.js';
import { plural } from '../text/index.js';
import type { Capture } from './_capture.js';

/** What `measure` concludes about one server. */
export type MeasurementStatus =
  | 'measured'
  | 'dynamic'
  | 'auth-required'
  | 'startup-failure'
  | 'timeout'
  | 'protocol-mismatch'
  | 'remote-auth-wall'
  | 'protocol-limit'
  | 'redirect-refused';

export const MEASUREMENT_STATUSES: readonly MeasurementStatus[] = Object.freeze([
  'measured',
  'dynamic',
  'auth-required',
  'startup-failure',
  'timeout',
  'protocol-mismatch',
  'remote-auth-wall',
  'protocol-limit',
  'redirect-refused',
]);

/**
 * The status a `measurement.json` may carry: what `measure` concludes, or `not-applicable`, which
 * a sweep publishes when an entry declared why this harness cannot run it and the failure's own
 * words bear that out.
 */
export type RecordStatus = MeasurementStatus | 'not-applicable';

export const RECORD_STATUSES: readonly RecordStatus[] = Object.freeze([...MEASUREMENT_STATUSES, 'not-applicable']);

// A server that needs credentials says so in its own words; these are the words servers use.
const AUTH_WORDS =
  /\b(api[ _-]?keys?|access[ _-]?tokens?|auth[ _-]?tokens?|bearer|unauthori[sz]ed|unauthenticated|authenticat(e|ion) (is )?(required|failed)|credentials?|not logged in|log ?in required|please (log|sign) ?in|forbidden|(missing|invalid|expired) (api[ _-]?)?(key|token))\b/i;
// ...or names the variable it lacks, upper case by convention (GITHUB_TOKEN, OPENAI_API_KEY).
const AUTH_VARIABLE = /\b[A-Z][A-Z0-9]*_(TOKEN|API_KEY|KEY|SECRET|PAT|PASSWORD)\b/;
/**
 * Errors of a server that answered but broke a bound the harness keeps (a frame or event's bytes,
 * the page count, the tool count, the catalog's bytes, nesting, notifications while a request
 * waited): not a crash, and a retry would break it again. Each message names the bound and the value.
 */
const HARNESS_BOUND_CODES: ReadonlySet<string> = new Set([
  'FRAME_TOO_LARGE',
  'TOO_MANY_PAGES',
  'TOO_MANY_TOOLS',
  'CATALOG_TOO_LARGE',
  'NESTING_TOO_DEEP',
  'TOO_MANY_NOTIFICATIONS',
]);
/** JSON-RPC "method not found". */
const METHOD_NOT_FOUND = -32601;
/** The most of a refusal's data.supported a note quotes. */
const MAX_SUPPORTED_CHARS = 300;
const PROTOCOL_WORDS = /protocol[ _-]?version|unsupported (protocol|version)|protocol (mismatch|not supported)|version (mismatch|not supported)/i;

export interface FailureVerdict {
  status: Exclude<MeasurementStatus, 'measured' | 'dynamic'>;
  note: string;
}

function mentionsCredentials(text: string): boolean {
  return AUTH_WORDS.test(text) || AUTH_VARIABLE.test(text);
}

/**
 * Names what went wrong with a failed capture. Credentials and protocol versions are recognised
 * only from the server's own refusal (its error response), or, when it exited by itself, from
 * what it wrote on the way out; a framing error or a timeout is never read as either.
 */
export function classifyFailure(capture: Capture, timeoutMs: number): FailureVerdict {
  const error = capture.error;
  const errorText = error ? `${error.message} ${stringify(error.data.rpcData)}` : '';
  const stray = describeStray(capture);
  const step = capture.failedStep ?? 'start';

  if (error?.code === 'DEADLINE' && step === 'counting') {
    return {
      status: 'timeout',
      note: `counting the catalog's tokens did not finish within the ${timeoutMs} ms budget shared by start, initialize, tools/list and counting${stray}`,
    };
  }
  if (error?.code === 'DEADLINE') {
    return {
      status: 'timeout',
      note: `no answer to ${step} within the ${timeoutMs} ms budget shared by start, initialize and tools/list${stray}`,
    };
  }
  if (error?.code === 'SPAWN_FAILED') return { status: 'startup-failure', note: error.message };
  // Before the exit checks: a stdio server cut off for an oversized line has "ended" too, but what
  // happened is the bound, not a crash.
  if (error && HARNESS_BOUND_CODES.has(error.code)) {
    return { status: 'protocol-limit', note: `the server broke a bound of the harness during ${step} (${error.code}): ${error.message}${stray}` };
  }
  if (error?.code === 'REDIRECT_REFUSED') return { status: 'redirect-refused', note: `${error.message}${stray}` };
  // Over HTTP the transport names what happened: a credentials wall (its challenge quoted), an
  // address nothing answers at (the cause), a refusal of both transports (what was tried).
  if (error?.code === 'AUTH_REQUIRED') return { status: 'remote-auth-wall', note: error.message };
  if (capture.remote && error && ['UNREACHABLE', 'HTTP_STATUS'].includes(error.code)) return { status: 'startup-failure', note: `${error.message}${stray}` };
  if (error?.code === 'RPC_ERROR') {
    // No handler for initialize is a refusal by protocol, not a crash: the 2026-07-28 revision
    // replaced the handshake with server/discover. Checked first: the refusal is structural.
    if (step === 'initialize' && error.data.rpcCode === METHOD_NOT_FOUND) {
      return {
        status: 'protocol-mismatch',
        note: `the server has no initialize handler (${error.message}); the 2026-07-28 revision replaced the handshake with server/discover${supportedQuote(error.data.rpcData)}`,
      };
    }
    if (mentionsCredentials(errorText)) return { status: 'auth-required', note: `the server needs credentials: ${error.message}` };
    if (PROTOCOL_WORDS.test(errorText)) return { status: 'protocol-mismatch', note: `the server refused ${step}: ${error.message}${supportedQuote(error.data.rpcData)}` };
    return { status: 'startup-failure', note: `the server refused ${step}: ${error.message}` };
  }
  if (capture.endedOnItsOwn && !capture.remote) {
    // A redaction marker names an env variable; that is our word, not the server's.
    const lastWords = `${capture.stderrTail}\n${errorText}`.replace(/\[redacted:\w+\]/g, '[redacted]');
    if (mentionsCredentials(lastWords)) {
      return { status: 'auth-required', note: `the server ${describeExit(capture)} saying it needs credentials: ${firstMatchingLine(lastWords)}` };
    }
    if (PROTOCOL_WORDS.test(lastWords)) {
      return { status: 'protocol-mismatch', note: `the server ${describeExit(capture)} naming the protocol version: ${firstMatchingLine(lastWords, PROTOCOL_WORDS)}` };
    }
    return { status: 'startup-failure', note: `the server ${describeExit(capture)} during ${step}${stray}` };
  }
  const what = error ? `${error.code}: ${error.message}` : 'no catalog';
  return { status: 'startup-failure', note: `no catalog from the server during ${step} (${what})${stray}` };
}

/**
 * Only the server's own `data.supported` says which revisions it speaks: quoted as the JSON it
 * sent (an own property of the error's data, bounded), never inferred from its message.
 */
function supportedQuote(rpcData: unknown): string {
  if (!isPlainObject(rpcData) || !Object.hasOwn(rpcData, 'supported')) return '';
  return `; the server's data.supported: ${shortJson(rpcData.supported, MAX_SUPPORTED_CHARS)}`;
}

function describeExit(capture: Capture): string {
  const exit = capture.exit;
  if (exit.signal) return `was killed by ${exit.signal}`;
  if (exit.code === null) return 'closed its output';
  return `exited with code ${exit.code}`;
}

function describeStray(capture: Capture): string {
  const stray = capture.strayResponses;
  if (stray.count === 0) return '';
  return `; ignored ${plural(stray.count, 'response')} whose id matched no request (first id: ${shortJson(stray.firstId)})`;
}

/** A value the server sent, as short JSON for a note: never the whole of a huge or deeply nested one. */
export function shortJson(value: unknown, maxChars = 100): string {
  if (value === undefined) return 'undefined';
  if (nestsDeeperThan(value, 8)) return '(a value nested too deep to show)';
  const text = stringify(value);
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

function firstMatchingLine(text: string, pattern?: RegExp): string {
  const matches = (line: string): boolean => (pattern ? pattern.test(line) : mentionsCredentials(line));
  const line = text.split('\n').find(matches) ?? text;
  return line.trim().slice(0, 300);
}

function stringify(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value);
  } catch {
    return '';
  }
}
