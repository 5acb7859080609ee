import { ApiError } from '../api/api-error';

/** An API error as the API said it: code, message, the problems with their paths, the request id. */
export function ErrorBanner({ error }: { error: unknown }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : new ApiError(0, 'CONSOLE_ERROR', String((error as Error)?.message ?? error));
  return (
    <div className="error-banner" role="alert">
      <strong>{api.code}</strong> {api.message}
      {api.errors.length > 0 && (
        <ul>
          {api.errors.map((problem) => (
            <li key={problem.path + problem.code}>
              <code>{problem.path || '/'}</code> {problem.message}
            </li>
          ))}
        </ul>
      )}
      {api.requestId && <div className="muted">request {api.requestId}</div>}
    </div>
  );
}
