import type { EngineServices } from '#workflow';
import { inSpan, tracingActive } from '#workflow/nest';

/** Traced, one span per node attempt (its MCP requests and store commands below it); undefined otherwise, so the engine wraps nothing. */
export function nodeSpans(runId: string): EngineServices['aroundNode'] {
  if (!tracingActive()) return undefined;
  return (node, attempt, execute) =>
    inSpan(
      `node ${node.id}`,
      {
        attributes: {
          'mcpflow.run.id': runId,
          'mcpflow.node.id': node.id,
          'mcpflow.node.type': node.type,
          'mcpflow.node.attempt': attempt,
        },
      },
      execute,
    );
}
