import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BODY_TOO_DEEP_TYPE } from './json-depth.js';
import { assignRequestId, maskKeyInPath } from './logging.js';
import { ApiError } from './api-errors.js';
import { HTTP_STATUS_BY_CODE, statusOfCode } from './error-codes.js';
import { OUTAGE_RETRY_AFTER_SECONDS, outageOf } from '#workflow/nest';

function hasCode(error: unknown): error is Error & { code: string; errors?: unknown } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

interface HealthReport {
  status: string;
  error?: Record<string, unknown>;
  details: Record<string, unknown>;
}

function isHealthReport(value: unknown): value is HealthReport {
  return typeof value === 'object' && value !== null && 'details' in value && 'status' in value;
}

const OUTAGE_MESSAGES = {
  STORE_UNAVAILABLE: 'The store is unreachable for now: retry after the Retry-After delay (with the same Idempotency-Key)',
  QUEUE_UNAVAILABLE: 'The queue (Redis) is unreachable for now: retry after the Retry-After delay (with the same Idempotency-Key)',
} as const;

/** Every error leaves as `{statusCode, code, message, errors?, requestId}` (SPEC §6). */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request & { id?: string }>();
    const response = http.getResponse<Response>();
    const requestId = assignRequestId(request, response);
    const body = this.toBody(exception);
    if (body.code === 'STORE_UNAVAILABLE' || body.code === 'QUEUE_UNAVAILABLE') {
      response.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
      this.logger.warn(
        { requestId, code: body.code, cause: (exception as Error).message },
        `${request.method} ${maskKeyInPath(request.path)}: 503`,
      );
    } else if (body.statusCode >= 500) {
      this.logger.error({ err: exception, requestId }, `${request.method} ${maskKeyInPath(request.path)} failed`);
    }
    response.status(body.statusCode).json({ ...body, requestId });
  }

  private toBody(exception: unknown): { statusCode: number; code: string; message: string; errors?: unknown; [extra: string]: unknown } {
    if (exception instanceof ApiError) {
      return {
        statusCode: HTTP_STATUS_BY_CODE[exception.code],
        code: exception.code,
        message: exception.message,
        errors: exception.errors,
      };
    }
    if (exception instanceof HttpException) {
      return this.fromHttpException(exception);
    }
    // An error from the libs that is the caller's doing keeps its code; anything else is a fault whose message stays in the log.
    const status = hasCode(exception) ? statusOfCode(exception.code) : undefined;
    if (hasCode(exception) && status !== undefined && status < 500) {
      const errors = Array.isArray(exception.errors) ? exception.errors : undefined;
      return { statusCode: status, code: exception.code, message: exception.message, errors };
    }
    const outage = outageOf(exception);
    if (outage) return { statusCode: HTTP_STATUS_BY_CODE[outage], code: outage, message: OUTAGE_MESSAGES[outage] };
    return { statusCode: 500, code: 'INTERNAL_ERROR', message: 'Internal error' };
  }

  private fromHttpException(exception: HttpException) {
    const statusCode = exception.getStatus();
    const response = exception.getResponse();
    if (isHealthReport(response)) {
      const down = Object.keys(response.error ?? {});
      return { statusCode, code: 'NOT_READY', message: `Not ready: ${down.join(', ')} down`, ...response };
    }
    if (isBodyTooDeep(exception.cause)) return { statusCode: 400, code: 'BODY_TOO_DEEP', message: exception.message };
    if (statusCode === 413) return { statusCode, code: 'BODY_TOO_LARGE', message: 'The request body is larger than the limit' };
    // Nest maps body-parser's SyntaxError to a BadRequestException carrying it as the cause.
    if (statusCode === 400 && exception.cause instanceof SyntaxError) {
      return { statusCode, code: 'MALFORMED_JSON', message: 'The request body is not valid JSON' };
    }
    const codes: Record<number, string> = { 400: 'BAD_REQUEST', 404: 'NOT_FOUND', 405: 'METHOD_NOT_ALLOWED' };
    // Nest's "Cannot GET <path>" repeats the path, which may hold an API key (MCP_KEY_IN_PATH).
    return { statusCode, code: codes[statusCode] ?? `HTTP_${statusCode}`, message: maskKeyInPath(exception.message) };
  }
}

function isBodyTooDeep(cause: unknown): boolean {
  return typeof cause === 'object' && cause !== null && (cause as { type?: unknown }).type === BODY_TOO_DEEP_TYPE;
}
