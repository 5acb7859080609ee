import { useState } from 'react';
import { useApi } from '../api/api-context';
import { ApiError, unwrap, type Problem } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { SchemaForm } from '../components/schema-form';
import type { Run } from './run-state';

type Action = 'accept' | 'decline' | 'cancel';

/** A waiting run's request for input, answered from a form built from its `requestedSchema`. */
export function InputRequestPanel({ runId, request }: { runId: string; request: NonNullable<Run['inputRequest']> }) {
  const { client } = useApi();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [answered, setAnswered] = useState<Action>();

  const answer = async (action: Action, content?: Record<string, unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await unwrap(client.POST('/runs/{id}/input', { params: { path: { id: runId } }, body: { action, content } }));
      setAnswered(action);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const problems: Problem[] = error instanceof ApiError ? error.errors : [];

  return (
    <section className="input-request" aria-labelledby="input-request-title" data-testid="input-request">
      <h2 id="input-request-title">Waiting for input (node {request.nodeId})</h2>
      <p>{request.message}</p>
      {answered ? (
        <p role="status">Answer sent ({answered}); the run resumes.</p>
      ) : (
        <>
          <ErrorBanner error={error} />
          <SchemaForm
            schema={request.requestedSchema}
            submitLabel="Send answer"
            busy={busy}
            problems={problems}
            onSubmit={(content) => answer('accept', content)}
            extraActions={
              <>
                <button type="button" disabled={busy} onClick={() => void answer('decline')}>
                  Decline
                </button>
                <button type="button" disabled={busy} onClick={() => void answer('cancel')}>
                  Cancel the request
                </button>
              </>
            }
          />
        </>
      )}
    </section>
  );
}
