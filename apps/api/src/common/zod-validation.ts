import type { z } from 'zod';
import { InvalidRequestError, type ApiError, type ProblemDetail } from './api-errors.js';

/** JSON pointer of a zod issue path: ['nodes', 2, 'id'] → '/nodes/2/id'. */
export function pointer(path: readonly PropertyKey[]): string {
  return path.length ? '/' + path.map((part) => String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('/') : '';
}

/** A libs/mcp dotted path under `root` as a JSON pointer: (`content`, `a.b[0]`) → `/content/a/b/0`. */
export function dottedPathPointer(root: string, path: string): string {
  const segments: string[] = [];
  const token = /\.?([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/gy;
  for (let match = token.exec(path); match; match = token.exec(path)) {
    segments.push(match[1] ?? match[2] ?? (JSON.parse(match[3]) as string));
  }
  return pointer([root, ...segments]);
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
 * Strings (values and keys) holding NUL (U+0000), with their paths: PostgreSQL, under the store,
 * cannot hold NUL in text, so they are refused up front instead of failing the write (a 500).
 */
export function nulProblems(value: unknown, path: PropertyKey[] = []): ProblemDetail[] {
  const problem = (at: PropertyKey[]) => ({ path: pointer(at), code: 'NUL_CHARACTER', message: 'must not contain NUL (\\u0000)' });
  if (typeof value === 'string') return value.includes('\0') ? [problem(path)] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => nulProblems(item, [...path, index]));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(key.includes('\0') ? [problem([...path, key])] : []),
    ...nulProblems(item, [...path, key]),
  ]);
}

/** Builds the error for a request part that does not parse; the default is 400 `VALIDATION_FAILED`. */
export type InvalidRequest = (problems: ProblemDetail[], where: string) => ApiError;

const validationFailed: InvalidRequest = (problems, where) => new InvalidRequestError(problems, `The request ${where} is invalid`);

/**
 * Parses a request part with a (strict) zod schema: every problem is reported with its exact
 * path, and unknown fields are rejected rather than silently dropped (SPEC §6).
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, where = 'body', invalid = validationFailed): z.output<S> {
  const nul = nulProblems(value);
  if (nul.length) throw invalid(nul, where);
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw invalid(toProblems(result.error), where);
  return result.data;
}

export interface ZodPipeOptions {
  /** An absent value (e.g. a header not sent) passes as undefined instead of being parsed. */
  optional?: boolean;
  invalid?: InvalidRequest;
}

/**
 * `@Body(new ZodPipe(schema))`, `@Query(new ZodPipe(schema, 'query'))`: every request part is
 * parsed in the controller, so use cases receive typed values (docs/architecture.md).
 */
export class ZodPipe<S extends z.ZodType> {
  constructor(
    private readonly schema: S,
    private readonly where = 'body',
    private readonly options: ZodPipeOptions = {},
  ) {}

  transform(value: unknown): z.output<S> | undefined {
    if (value === undefined && this.options.optional) return undefined;
    return parseRequest(this.schema, value, this.where, this.options.invalid);
  }
}
