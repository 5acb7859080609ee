import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { ApiError, NotFoundError } from '../common/api-errors.js';
import { PUBLIC_ROUTE, REQUIRED_SCOPES, WORKFLOW_SCOPE, type AuthenticatedRequest, type WorkflowScope } from './access.decorators.js';
import { ApiKeyAuthenticator, type Principal } from './api-key-authenticator.js';
import { bearerToken } from './api-key-token.js';
import { RateLimits, type RetryAfter } from './rate-limits.js';
import { grants, type Scope } from './scopes.js';
import { WorkflowOfRun } from './workflow-of-run.js';

/** One answer for a missing, malformed, unknown, revoked or expired key: no oracle. */
const UNAUTHENTICATED = 'A valid API key is required (Authorization: Bearer <key>)';

function rateLimited(res: Response, retryAfter: number, message: string): ApiError {
  res.setHeader('Retry-After', String(retryAfter));
  return new ApiError('RATE_LIMITED', message);
}

/**
 * The global gate (APP_GUARD): every route is public, or needs a key holding one of the scopes it
 * declares. Order: key (none or unknown: failed-auth block of the address) → per-key rate → scope → workflow limit.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly limits: RateLimits,
    private readonly runs: WorkflowOfRun,
    private readonly logger: PinoLogger,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request & AuthenticatedRequest>();
    const res = http.getResponse<Response>();
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';

    // The address block stops key guessing: a valid key passes a block that others behind the same address caused.
    const token = bearerToken(req.headers.authorization);
    const principal = token ? await this.authenticator.authenticate(token) : undefined;
    if (!principal) {
      const blocked = await this.limits.failureBlock(ip);
      if (blocked) throw rateLimited(res, blocked, 'Too many failed authentications from this address');
      throw await this.refuse(res, ip, req.method === 'OPTIONS' && token === undefined);
    }

    this.logger.assign({ keyId: principal.keyId });
    const retryAfter: RetryAfter = await this.limits.consumeKey(principal.keyId);
    if (retryAfter) throw rateLimited(res, retryAfter, 'Too many requests for this API key');

    const sufficient = this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, targets);
    if (!sufficient?.length) throw new ApiError('FORBIDDEN', `${req.method} ${req.path} declares no scope, so no key may call it`);
    if (!grants(principal.scopes, sufficient)) {
      throw new ApiError('FORBIDDEN', `This API key lacks the scope ${sufficient.map((s) => `"${s}"`).join(' or ')} (or "admin")`);
    }
    if (principal.workflows)
      await this.checkWorkflow(principal.workflows, this.reflector.getAllAndOverride<WorkflowScope>(WORKFLOW_SCOPE, targets), req);
    req.principal = principal;
    return true;
  }

  /** A workflow-limited key: another workflow (or a run of one) does not exist for it. */
  private async checkWorkflow(allowed: NonNullable<Principal['workflows']>, scope: WorkflowScope | undefined, req: Request): Promise<void> {
    if (!scope) throw new ApiError('FORBIDDEN', 'This API key is limited to some workflows and cannot use this route');
    if (scope === 'filtered') return;
    if ('workflowParam' in scope) {
      const id = String(req.params[scope.workflowParam]);
      if (!allowed.includes(id)) throw new NotFoundError('Workflow', id);
      return;
    }
    const runId = String(req.params[scope.runParam]);
    const workflowId = await this.runs.workflowOf(runId);
    if (!workflowId || !allowed.includes(workflowId)) throw new NotFoundError('Run', runId);
  }

  /** `preflight`: a CORS preflight (OPTIONS without a key) is no guess, so it is not counted. */
  private async refuse(res: Response, ip: string, preflight: boolean): Promise<ApiError> {
    const retryAfter = preflight ? undefined : await this.limits.recordFailure(ip);
    if (retryAfter) return rateLimited(res, retryAfter, 'Too many failed authentications from this address');
    res.setHeader('WWW-Authenticate', 'Bearer');
    return new ApiError('UNAUTHENTICATED', UNAUTHENTICATED);
  }
}
