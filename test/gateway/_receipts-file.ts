// The receipts a gateway wrote with --receipts FILE, one parsed JSON line each, in order.
import { readFileSync } from 'node:fs';
import type { Receipt } from '../../src/gateway/receipts/index.js';

export function receiptsIn(file: string): Receipt[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Receipt);
}
