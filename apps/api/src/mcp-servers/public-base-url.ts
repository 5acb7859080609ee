import type { Request } from 'express';
import type { AppConfig } from '#workflow/nest';

/**
 * Where clients reach this API: PUBLIC_BASE_URL when set (behind a proxy or load balancer), else
 * the scheme and Host of the request itself.
 */
export function publicBaseUrl(config: AppConfig, req: Pick<Request, 'protocol' | 'headers'>): string {
  return config.mcp.publicBaseUrl ?? `${req.protocol}://${req.headers.host ?? `${config.api.host}:${config.api.port}`}`;
}
