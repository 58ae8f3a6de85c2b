import { isMcpctxError, type McpctxError } from '../../src/errors/index.js';

/** The McpctxError a call ends with; fails the test when the call succeeds or throws anything else. */
export async function failure(promise: Promise<unknown>): Promise<McpctxError> {
  try {
    await promise;
  } catch (error) {
    if (isMcpctxError(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** The McpctxError a synchronous call throws; fails the test when it returns or throws anything else. */
export function thrownBy(run: () => unknown): McpctxError {
  try {
    run();
  } catch (error) {
    if (isMcpctxError(error)) return error;
    throw error;
  }
  throw new Error('expected the call to throw');
}
