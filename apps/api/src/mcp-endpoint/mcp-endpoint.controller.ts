import { All, Controller, Get, Inject, Logger, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, McpServerRepository, type AppConfig, type McpServerRecord } from '#workflow/nest';
import { Public } from '../api-keys/access.decorators.js';
import { bearerToken } from '../api-keys/api-key-token.js';
import { KeyBoundStreams } from '../api-keys/key-bound-streams.js';
import { LegacySseSessions } from './legacy-sse.js';
import { McpCallers, type McpCaller } from './mcp-callers.js';
import { RequestOrigin } from './request-origin.js';
import { StreamableHttpEndpoint } from './streamable-http.js';
import { ApiRoute } from '../common/api-route.js';
import { mcpEndpointKeyInPathRoutes, mcpEndpointRoutes } from './mcp-endpoint.routes.js';

interface Admitted {
  server: McpServerRecord;
  caller: McpCaller;
}

function refuse(res: Response, status: number, message: string, headers: Record<string, string> = {}): undefined {
  res
    .status(status)
    .set(headers)
    .json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  return undefined;
}

/**
 * The MCP endpoints of published servers. Before any MCP processing: the Host/Origin check (DNS
 * rebinding), the caller's key, the server's existence. Answers are JSON-RPC shaped, as MCP
 * clients expect, not the REST error body.
 */
@Controller('mcp')
@Public() // authenticated by McpCallers (API key with `mcp`), answered in JSON-RPC shape
export class McpEndpointController {
  private readonly logger = new Logger(McpEndpointController.name);
  private readonly origin: RequestOrigin;
  private readonly allowKeyInPath: boolean;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly servers: McpServerRepository,
    private readonly callers: McpCallers,
    private readonly streamable: StreamableHttpEndpoint,
    private readonly legacySse: LegacySseSessions,
    private readonly keyBound: KeyBoundStreams,
  ) {
    this.origin = new RequestOrigin(config);
    this.allowKeyInPath = config.mcp.keyInPath;
  }

  /** Streamable HTTP, every revision (2026-07-28 and 2025-*). */
  @All(':id')
  @ApiRoute(mcpEndpointRoutes.streamableHttp)
  async streamableHttp(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.serve(id, bearerToken(req.headers.authorization), req, res, (admitted) =>
      this.streamable.serve(admitted.server, admitted.caller, req, res),
    );
  }

  /** Legacy 2024-11-05 HTTP+SSE: the event stream. */
  @Get(':id/sse')
  @ApiRoute(mcpEndpointRoutes.sseStream)
  async sseStream(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.serve(id, bearerToken(req.headers.authorization), req, res, (admitted) =>
      this.legacySse.open(admitted.server, admitted.caller, res),
    );
  }

  /** Legacy 2024-11-05 HTTP+SSE: the client's messages (`?sessionId=` from the stream's `endpoint` event). */
  @Post(':id/messages')
  @ApiRoute(mcpEndpointRoutes.sseMessage)
  async sseMessage(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.serve(id, bearerToken(req.headers.authorization), req, res, (admitted) =>
      this.legacySse.post(admitted.server, admitted.caller, req, res),
    );
  }

  /*
   * The same three with the key in the path (MCP_KEY_IN_PATH=on), for clients that cannot send
   * headers. Weaker: a URL lands in proxy logs, shell history and client configs. Our own request
   * logs and error bodies show the path with the key masked (common/logging.ts).
   */

  @All(':id/key/:key')
  @ApiRoute(mcpEndpointKeyInPathRoutes.streamableHttpKeyInPath)
  async streamableHttpKeyInPath(@Param('id') id: string, @Param('key') key: string, @Req() req: Request, @Res() res: Response) {
    await this.serve(id, this.keyInPath(key, res), req, res, (admitted) =>
      this.streamable.serve(admitted.server, admitted.caller, req, res),
    );
  }

  @Get(':id/key/:key/sse')
  @ApiRoute(mcpEndpointKeyInPathRoutes.sseStreamKeyInPath)
  async sseStreamKeyInPath(@Param('id') id: string, @Param('key') key: string, @Req() req: Request, @Res() res: Response) {
    await this.serve(id, this.keyInPath(key, res), req, res, (admitted) => this.legacySse.open(admitted.server, admitted.caller, res));
  }

  @Post(':id/key/:key/messages')
  @ApiRoute(mcpEndpointKeyInPathRoutes.sseMessageKeyInPath)
  async sseMessageKeyInPath(@Param('id') id: string, @Param('key') key: string, @Req() req: Request, @Res() res: Response) {
    await this.serve(id, this.keyInPath(key, res), req, res, (admitted) => this.legacySse.post(admitted.server, admitted.caller, req, res));
  }

  /** The path's key, or null (answered 404) when keys in the path are off. */
  private keyInPath(key: string, res: Response): string | null {
    if (this.allowKeyInPath) return key;
    refuse(res, 404, 'Not found: API keys in the path are off (MCP_KEY_IN_PATH)');
    return null;
  }

  private async serve(
    id: string,
    token: string | undefined | null,
    req: Request,
    res: Response,
    handle: (admitted: Admitted) => Promise<void>,
  ): Promise<void> {
    if (token === null) return;
    await this.guarded(res, async () => {
      const admitted = await this.admit(id, token, req, res);
      if (!admitted) return;
      // A stream (legacy SSE, a GET stream, a long call's SSE answer) ends when its key is revoked or
      // expires. Destroyed, not ended: the SDK may still write to it, which a destroyed answer ignores.
      const release = this.keyBound.hold(admitted.caller.keyId, () => res.destroy());
      res.once('close', release);
      await handle(admitted);
    });
  }

  private async admit(id: string, token: string | undefined, req: Request, res: Response): Promise<Admitted | undefined> {
    const originProblem = this.origin.problem(req.headers.host, req.headers.origin);
    if (originProblem) return refuse(res, 403, originProblem);
    const check = await this.callers.check(token, id, req.ip ?? req.socket.remoteAddress ?? 'unknown', req.method === 'OPTIONS');
    if (!check.ok) return refuse(res, check.status, check.message, check.headers);
    const server = await this.servers.findById(id);
    if (!server) return refuse(res, 404, `MCP server ${id} not found`);
    return { server, caller: check.caller };
  }

  private async guarded(res: Response, serve: () => Promise<void>): Promise<void> {
    try {
      await serve();
    } catch (error) {
      this.logger.error({ err: error }, 'MCP endpoint failure');
      if (!res.headersSent) refuse(res, 500, 'Internal error');
      else res.end();
    }
  }
}
