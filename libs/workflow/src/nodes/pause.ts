import { ENGINE_ERROR_CODES, EngineError } from '../engine/errors.js';
import type { EngineServices, PauseRequest, RunPauses } from '../engine/types.js';

/** The run's waiting state, or a clear failure where the host cannot pause a run durably. */
export function pausesOf(services: EngineServices, type: string): RunPauses {
  if (!services.pauses) {
    throw new EngineError(ENGINE_ERROR_CODES.nodeExecutionFailed, `${type} nodes need a host that can pause a run (services.pauses)`);
  }
  return services.pauses;
}

/** Pauses the run on `nodeId`: the request is kept for the run's waiting state, and the node ends `waiting`. */
export function pauseRun(pauses: RunPauses, nodeId: string, request: PauseRequest): never {
  pauses.request(nodeId, request);
  const { message, requestedSchema, resumeAt } = request;
  throw new EngineError(ENGINE_ERROR_CODES.inputRequired, message, {
    details: { inputRequest: { message, requestedSchema }, ...(resumeAt !== undefined && { resumeAt: new Date(resumeAt).toISOString() }) },
  });
}
