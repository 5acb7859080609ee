/** One problem of a 4xx answer: where (a JSON pointer) and what. */
export interface Problem {
  path: string;
  code: string;
  message: string;
}

/** An answer of the API that is not a success, with the fields of its error body (`{statusCode, code, message, errors?, requestId}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: Problem[] = [],
    readonly requestId?: string,
  ) {
    super(message);
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of an openapi-fetch answer, or an ApiError carrying the API's code and message. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (cause) {
    throw new ApiError(0, 'NETWORK_ERROR', `The API did not answer: ${(cause as Error).message}`);
  }
  if (answer.response.ok) return answer.data as T;
  throw errorOf(answer.response.status, answer.error);
}

export function errorOf(status: number, body: unknown): ApiError {
  const fields = (body && typeof body === 'object' ? body : {}) as Partial<{
    code: string;
    message: string;
    errors: Problem[];
    requestId: string;
  }>;
  return new ApiError(
    status,
    fields.code ?? `HTTP_${status}`,
    fields.message ?? `The API answered ${status}`,
    fields.errors,
    fields.requestId,
  );
}
