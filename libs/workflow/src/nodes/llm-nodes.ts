import type { NodeExecutor } from '../engine/types.js';
import { agentNode } from './agent/agent-node.js';
import { llmNode } from './llm.js';

/** The model-backed node types. At run time they need the LlmClient port in `services.extras.llm`. */
export const llmNodeExecutors: readonly NodeExecutor[] = [llmNode, agentNode];
