// The McpctxError a promise rejects with; any other rejection, or none, fails the test.
import { McpctxError } from '../../src/errors/index.js';

export async function rejection(promise: Promise<unknown>): Promise<McpctxError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpctxError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
