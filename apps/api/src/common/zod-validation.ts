import type { z } from 'zod';
import { InvalidRequestError, type ProblemDetail } from './api-errors.js';

/** JSON pointer of a zod issue path: ['nodes', 2, 'id'] → '/nodes/2/id'. */
export function pointer(path: readonly PropertyKey[]): string {
  return path.length ? '/' + path.map((part) => String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('/') : '';
}

function toProblems(error: z.ZodError): ProblemDetail[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: pointer([...issue.path, key]),
        code: 'UNKNOWN_FIELD',
        message: `Unknown field "${key}"`,
      }));
    }
    return [{ path: pointer(issue.path), code: issue.code.toUpperCase(), message: issue.message }];
  });
}

/**
 * Parses a request part with a (strict) zod schema: every problem is reported with its exact
 * path, and unknown fields are rejected rather than silently dropped (SPEC §6).
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) {
    throw new InvalidRequestError(toProblems(result.error), `The request ${where} is invalid`);
  }
  return result.data;
}

/** `@Body(new ZodPipe(schema))`: the same parsing as a Nest pipe. */
export class ZodPipe<S extends z.ZodType> {
  constructor(
    private readonly schema: S,
    private readonly where = 'body',
  ) {}

  transform(value: unknown): z.output<S> {
    return parseRequest(this.schema, value, this.where);
  }
}
