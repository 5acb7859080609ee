import type { ApiErrorCode } from './error-codes.js';

/** One problem in a request, with the exact path (JSON pointer) of the offending value. */
export interface ProblemDetail {
  path: string;
  code: string;
  message: string;
}

/**
 * Errors the API's use cases throw. They carry a code; the HTTP status is chosen in one place
 * (ApiExceptionFilter), so services never build HTTP responses themselves.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly errors?: ProblemDetail[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidRequestError extends ApiError {
  constructor(errors: ProblemDetail[], message = 'The request is invalid', code: ApiErrorCode = 'VALIDATION_FAILED') {
    super(code, message, errors);
  }
}

export class NotFoundError extends ApiError {
  constructor(what: string, id: string) {
    super('NOT_FOUND', `${what} ${id} not found`);
  }
}

export class ConflictError extends ApiError {
  constructor(code: ApiErrorCode, message: string) {
    super(code, message);
  }
}
