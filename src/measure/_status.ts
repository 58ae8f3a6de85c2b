import type { Capture } from './_capture.js';

export type MeasurementStatus = 'measured' | 'dynamic' | 'auth-required' | 'startup-failure' | 'timeout' | 'protocol-mismatch';

export const MEASUREMENT_STATUSES: readonly MeasurementStatus[] = Object.freeze([
  'measured',
  'dynamic',
  'auth-required',
  'startup-failure',
  'timeout',
  'protocol-mismatch',
]);

// A server that needs credentials says so in its own words; these are the words servers use.
const AUTH_WORDS =
  /\b(api[ _-]?keys?|access[ _-]?tokens?|auth[ _-]?tokens?|bearer|unauthori[sz]ed|unauthenticated|authenticat(e|ion) (is )?(required|failed)|credentials?|not logged in|log ?in required|please (log|sign) ?in|forbidden|(missing|invalid|expired) (api[ _-]?)?(key|token)|[A-Z0-9]+_(TOKEN|API_KEY|KEY|SECRET)\b)/i;
const PROTOCOL_WORDS = /protocol[ _-]?version|unsupported (protocol|version)|protocol (mismatch|not supported)|version (mismatch|not supported)/i;

export interface FailureVerdict {
  status: Exclude<MeasurementStatus, 'measured' | 'dynamic'>;
  note: string;
}

/** Names what went wrong with a failed capture, from the error and the server's own words. */
export function classifyFailure(capture: Capture, timeoutMs: number): FailureVerdict {
  const error = capture.error;
  const errorText = error ? `${error.message} ${String(error.data.rpcMessage ?? '')} ${stringify(error.data.rpcData)}` : '';
  const serverWords = `${errorText}\n${capture.stderrTail}`;
  const exit = describeExit(capture);
  const stray = describeStray(capture);

  if (error?.code === 'DEADLINE') {
    return {
      status: 'timeout',
      note: `no answer to ${capture.failedStep} within the ${timeoutMs} ms budget shared by start, initialize and tools/list${stray}`,
    };
  }
  const serverRefused = error?.code === 'RPC_ERROR';
  const serverEnded = error?.code === 'TRANSPORT_CLOSED' || capture.exit !== undefined;
  if ((serverRefused || serverEnded) && AUTH_WORDS.test(serverWords)) {
    return { status: 'auth-required', note: `the server needs credentials: ${firstMatchLine(serverWords, AUTH_WORDS)}` };
  }
  if (serverRefused && PROTOCOL_WORDS.test(errorText)) {
    return { status: 'protocol-mismatch', note: `the server refused ${capture.failedStep}: ${error.message}` };
  }
  if (error?.code === 'SPAWN_FAILED') return { status: 'startup-failure', note: error.message };
  if (error?.code === 'TRANSPORT_CLOSED') {
    return { status: 'startup-failure', note: `the server ${exit} during ${capture.failedStep}${stray}` };
  }
  const what = error ? `${error.code}: ${error.message}` : 'no catalog';
  return { status: 'startup-failure', note: `no catalog from the server during ${capture.failedStep} (${what})${stray}` };
}

function describeExit(capture: Capture): string {
  const exit = capture.exit;
  if (!exit) return 'closed its output';
  if (exit.signal) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code}`;
}

function describeStray(capture: Capture): string {
  const stray = capture.strayResponses;
  if (stray.count === 0) return '';
  return `; ignored ${stray.count} response(s) whose id matched no request (first id: ${JSON.stringify(stray.firstId)})`;
}

function firstMatchLine(text: string, pattern: RegExp): string {
  const line = text.split('\n').find((candidate) => pattern.test(candidate)) ?? text;
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
