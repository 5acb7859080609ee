import type { components } from '#client';

type Health = components['schemas']['ToolsetHealth'] | null;

export function HealthBadge({ health }: { health: Health }) {
  if (!health) return <span className="badge">not checked</span>;
  if (health.ok) return <span className="badge status-succeeded">healthy</span>;
  return (
    <span className="badge status-failed" title={health.error?.message}>
      {health.error?.code ?? 'unhealthy'}
    </span>
  );
}
