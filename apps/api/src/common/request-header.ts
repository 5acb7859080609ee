import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/**
 * `@RequestHeader('idempotency-key', new ZodPipe(schema, 'Idempotency-Key header', { optional: true }))`:
 * Nest's own `@Headers()` takes no pipes, so a header could not be parsed in the controller like the body and query.
 */
export const RequestHeader = createParamDecorator(
  (name: string, context: ExecutionContext) => context.switchToHttp().getRequest<Request>().headers[name],
);
