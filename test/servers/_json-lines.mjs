// What the small stdio test servers share: each line of stdin parsed as JSON (a line that is not
// JSON is skipped, as a server ignores noise), and one message written per line of stdout.
import { createInterface } from 'node:readline';

/** @param {(message: any) => void} handle */
export function onJsonLines(handle) {
  createInterface({ input: process.stdin }).on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    handle(message);
  });
}

/** @param {unknown} message */
export function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
