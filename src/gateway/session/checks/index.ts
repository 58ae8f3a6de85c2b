// The steps a `tools/call` passes, in order, before the relay and the shaping of its result. Each
// is one file: `(target, call) => outcome | undefined`; the first outcome ends the call. A new
// check is a new file and one entry here. The order is behaviour: a tool whose upstream's catalog
// was unusable is refused before anything else looks at it; a denied tool is refused as
// denied before the trust gates speak, and a page continued from the store is neither checked
// against the schema nor confirmed again.
import type { CallCheck } from '../_call.js';
import { checkArguments } from './_arguments.js';
import { confirm } from './_confirm.js';
import { continuation } from './_continuation.js';
import { deny } from './_deny.js';
import { pins } from './_pins.js';
import { scan } from './_scan.js';
import { unavailable } from './_unavailable.js';
import { unlisted } from './_unlisted.js';

export const CALL_CHECKS: readonly CallCheck[] = [unavailable, deny, pins, scan, unlisted, continuation, checkArguments, confirm];
