// `ai`, the optional peer this entry is built on, imported once when the entry is: a missing `ai`
// fails that import with MISSING_DEPENDENCY and `npm install ai` (importPeer says why not lazier).
import type * as AiModule from 'ai';
import { importPeer } from '../../lazy/index.js';

export const ai: typeof AiModule = await importPeer('ai', 'mcpctx/host/ai-sdk', () => import('ai'));
