import type * as BadgeMaker from 'badge-maker';
import { lazyRequire } from '../../lazy/index.js';
import { bandFor, safeSegment } from '../../measure/index.js';
import { plural } from '../../text/index.js';
import type { PublishedServer } from '../_model.js';

/** Loaded by the first badge drawn: `audit` reads results folders without drawing any. */
const badgeMaker = lazyRequire<typeof BadgeMaker>('badge-maker');

export const BADGES_DIR = 'badges';
const LABEL = 'context cost';

/** `badges/<name>.svg`: the server's name as one safe path segment. */
export function badgeFileName(server: string): string {
  return `${safeSegment(server)}.svg`;
}

/**
 * A shields-style badge, offline: "context cost | 1,708 tokens" in the band colour of the total
 * for a server with a number (measured or dynamic), otherwise its status in lightgrey. Nothing the
 * server sent or named reaches the SVG: the message is a count or one of the fixed statuses.
 */
export function badgeSvg(server: PublishedServer): string {
  const tokens = server.measurement?.totalTokens;
  const hasNumber = (server.status === 'measured' || server.status === 'dynamic') && typeof tokens === 'number' && Number.isSafeInteger(tokens) && tokens >= 0;
  const svg = hasNumber
    ? badgeMaker().makeBadge({ label: LABEL, message: plural(tokens, 'token'), color: bandFor(tokens) })
    : badgeMaker().makeBadge({ label: LABEL, message: server.status, color: 'lightgrey' });
  return svg.endsWith('\n') ? svg : `${svg}\n`;
}
