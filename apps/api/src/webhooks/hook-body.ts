import { raw, type NextFunction, type Request, type Response } from 'express';
import type { Metrics } from '#workflow/nest';

/** Where deliveries arrive; its bodies are read as raw bytes (the signatures are over them), never as JSON first. */
export const HOOKS_PATH = '/hooks';

/**
 * The body reader of `POST /hooks/:id`, mounted before the JSON parser: any content type, kept as
 * a Buffer, capped at HOOK_BODY_LIMIT_BYTES (413 BODY_TOO_LARGE, counted as a refusal).
 */
export function hookBodyReader(limitBytes: number, metrics: Metrics) {
  const read = raw({ type: () => true, limit: limitBytes });
  return (req: Request, res: Response, next: NextFunction) =>
    read(req, res, (error?: unknown) => {
      if ((error as { type?: string } | undefined)?.type === 'entity.too.large') metrics.hookRefused('body_too_large');
      next(error);
    });
}
