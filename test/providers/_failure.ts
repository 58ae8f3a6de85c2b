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
