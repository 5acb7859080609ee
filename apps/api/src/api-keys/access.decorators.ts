import { applyDecorators, createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Principal } from './api-key-authenticator.js';
import type { Scope } from './scopes.js';

/**
 * Every route declares its access, and the app refuses to start when one does not
 * (route-declarations.ts): either `@Public()` or `@RequireScope(…)`.
 */
export const PUBLIC_ROUTE = 'mcpflow:public';
export const REQUIRED_SCOPES = 'mcpflow:scopes';
export const WORKFLOW_SCOPE = 'mcpflow:workflow-scope';

export const SIGNED_ROUTE = 'mcpflow:signed';

/** No key needed (health, public documents). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/**
 * No key, because the caller is a third party (GitHub, Stripe, Slack…) that proves itself with a
 * signature the handler checks over the raw body (inbound webhooks). Public to the guard, marked
 * apart so a list of open routes tells it from health and documents.
 */
export const SignedDelivery = () => applyDecorators(SetMetadata(PUBLIC_ROUTE, true), SetMetadata(SIGNED_ROUTE, true));

/** A key holding any one of these scopes (or `admin`) may call the route. */
export const RequireScope = (...scopes: [Scope, ...Scope[]]) => SetMetadata(REQUIRED_SCOPES, scopes);

/**
 * How a route is about workflows, for keys limited to some: the workflow is the route parameter
 * `workflowParam`, or the workflow of the run in `runParam` (the guard answers 404 for others), or
 * `'filtered'`: the handler itself leaves other workflows out (lists). Without it such a key is
 * refused (403): a route that knows nothing of workflows cannot leak them.
 */
export type WorkflowScope = { workflowParam: string } | { runParam: string } | 'filtered';
export const WorkflowScoped = (scope: WorkflowScope) => SetMetadata(WORKFLOW_SCOPE, scope);

/** The request's principal, set by the auth guard. */
export interface AuthenticatedRequest {
  principal?: Principal;
}

/** `@Caller() caller: Principal` in a handler behind the guard. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('@Caller() used on a route without an authenticated principal');
  return principal;
});
