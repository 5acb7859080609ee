import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { AppConfig } from '#workflow/nest';

/**
 * DNS rebinding protection for the MCP endpoints: the Host must be a name this API is reached by
 * (the PUBLIC_BASE_URL host, API_HOST, loopback names, MCP_ALLOWED_HOSTS), and a browser's Origin
 * must be one of them too (requests without Origin — every non-browser client — pass).
 */
export class RequestOrigin {
  private readonly hostnames: string[];

  constructor(config: AppConfig) {
    const names = [...localhostAllowedHostnames(), config.api.host, ...config.mcp.allowedHosts];
    if (config.mcp.publicBaseUrl) names.push(new URL(config.mcp.publicBaseUrl).hostname);
    this.hostnames = [...new Set(names.filter((name) => name && name !== '0.0.0.0' && name !== '::').map((name) => name.toLowerCase()))];
  }

  /** A reason to refuse (403), or undefined when the request may proceed. */
  problem(host: string | undefined, origin: string | undefined): string | undefined {
    const hostCheck = validateHostHeader(host, this.hostnames);
    if (!hostCheck.ok) return hostCheck.message;
    const originCheck = validateOriginHeader(origin, this.hostnames);
    return originCheck.ok ? undefined : originCheck.message;
  }
}
