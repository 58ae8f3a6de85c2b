// @openai/agents, the optional peer this entry is built on, imported once when the entry is: a
// missing one fails that import with MISSING_DEPENDENCY and its npm install (see importPeer).
import type * as AgentsModule from '@openai/agents';
import { importPeer } from '../../lazy/index.js';

export const agents: typeof AgentsModule = await importPeer('@openai/agents', 'mcpctx/host/openai-agents', () => import('@openai/agents'));
