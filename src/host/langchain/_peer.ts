// @langchain/core, the optional peer this entry is built on, imported once when the entry is: a
// missing one fails that import with MISSING_DEPENDENCY and its npm install (see importPeer).
import type * as MessagesModule from '@langchain/core/messages';
import type * as ToolsModule from '@langchain/core/tools';
import { importPeer } from '../../lazy/index.js';

export const messages: typeof MessagesModule = await importPeer('@langchain/core', 'mcpctx/host/langchain', () => import('@langchain/core/messages'));
export const tools: typeof ToolsModule = await importPeer('@langchain/core', 'mcpctx/host/langchain', () => import('@langchain/core/tools'));
