// The Claude Agent SDK, the optional peer this entry is built on, imported once when the entry is:
// a missing one fails that import with MISSING_DEPENDENCY and its npm install (see importPeer).
import type * as AgentSdkModule from '@anthropic-ai/claude-agent-sdk';
import { importPeer } from '../../lazy/index.js';

export const agentSdk: typeof AgentSdkModule = await importPeer('@anthropic-ai/claude-agent-sdk', 'mcpctx/host/claude-agent-sdk', () => import('@anthropic-ai/claude-agent-sdk'));
