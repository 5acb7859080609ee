import { useState } from 'react';
import { useLocation } from 'wouter';
import { useApi } from '../api/api-context';
import { ApiError, unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { fieldsOf } from '../components/schema-fields';
import { SchemaForm } from '../components/schema-form';
import type { Run } from './run-state';

interface Props {
  run: Run;
  nodeId: string;
  /** The inputSchema of the version the run used: its secret inputs are not carried over and are asked again. */
  inputSchema: unknown;
}

/**
 * "Re-run from here" (POST /runs/:id/replay): the nodes before `nodeId` keep their recorded
 * outcomes, `nodeId` and what follows run again; lands on the new run's page. The run's inputs
 * are the earlier run's; secret ones (stored as `***`) are asked for again in password fields.
 */
export function ReplayForm({ run, nodeId, inputSchema }: Props) {
  const { client } = useApi();
  const [, navigate] = useLocation();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const secrets = fieldsOf(inputSchema).filter((field) => field.kind === 'secret');

  const replay = async (secretValues?: Record<string, unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      const kept = Object.fromEntries(Object.entries(run.inputs).filter(([name]) => !secrets.some((field) => field.name === name)));
      const body = secretValues ? { fromNodeId: nodeId, inputs: { ...kept, ...secretValues } } : { fromNodeId: nodeId };
      const again = await unwrap(client.POST('/runs/{id}/replay', { params: { path: { id: run.id }, query: {} }, body }));
      navigate(`/runs/${again.id}`);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <section className="replay" aria-label={`Re-run from ${nodeId}`}>
      <ErrorBanner error={error} />
      {secrets.length === 0 ? (
        <button type="button" disabled={busy} onClick={() => void replay()}>
          Re-run from here
        </button>
      ) : (
        <>
          <p className="muted">Secret inputs are not kept: give them again to re-run from {nodeId}.</p>
          <SchemaForm
            key={`${run.id}-${nodeId}`}
            schema={secretSchema(
              inputSchema,
              secrets.map((field) => field.name),
            )}
            submitLabel="Re-run from here"
            busy={busy}
            problems={error instanceof ApiError ? error.errors : []}
            onSubmit={replay}
          />
        </>
      )}
    </section>
  );
}

/** The inputSchema cut down to its secret properties. */
function secretSchema(schema: unknown, names: string[]): Record<string, unknown> {
  const { properties = {}, required = [] } = schema as { properties?: Record<string, unknown>; required?: string[] };
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, properties[name]])),
    required: required.filter((name) => names.includes(name)),
  };
}
