import { formatDuration } from '../components/format';

export interface ToolUsage {
  tool: string;
  calls: number;
  errors: Record<string, number>;
  p50Ms: number;
  p95Ms: number;
}

const BAR = 14;
const LABEL = 130;
const WIDTH = 360;

/**
 * Calls per tool (failed part in red) and p50/p95 latency, as plain SVG bars: a chart library
 * would weigh more than the page's graph for four numbers per tool. The same figures are in the
 * table beside it for screen readers.
 */
export function UsageChart({ usage }: { usage: { calls: number; failed: number; tools: ToolUsage[] } }) {
  const most = Math.max(1, ...usage.tools.map((tool) => tool.calls));
  const slowest = Math.max(1, ...usage.tools.map((tool) => tool.p95Ms));
  const scale = (value: number, max: number) => ((WIDTH - LABEL - 60) * value) / max;
  const height = usage.tools.length * (BAR * 2 + 12) + 4;
  return (
    <figure className="usage">
      <svg width={WIDTH} height={height} role="img" aria-label={`Calls and latency of ${usage.tools.length} tools`}>
        {usage.tools.map((tool, index) => {
          const y = index * (BAR * 2 + 12);
          const failed = Object.values(tool.errors).reduce((sum, count) => sum + count, 0);
          return (
            <g key={tool.tool}>
              <text x={0} y={y + BAR - 3} className="chart-label">
                {tool.tool}
              </text>
              <rect x={LABEL} y={y} width={scale(tool.calls - failed, most)} height={BAR} className="bar-ok" />
              <rect x={LABEL + scale(tool.calls - failed, most)} y={y} width={scale(failed, most)} height={BAR} className="bar-bad" />
              <text x={LABEL + scale(tool.calls, most) + 4} y={y + BAR - 3} className="chart-value">
                {tool.calls}
              </text>
              <rect x={LABEL} y={y + BAR + 2} width={scale(tool.p95Ms, slowest)} height={BAR - 4} className="bar-p95" />
              <rect x={LABEL} y={y + BAR + 2} width={scale(tool.p50Ms, slowest)} height={BAR - 4} className="bar-p50" />
              <text x={LABEL + scale(tool.p95Ms, slowest) + 4} y={y + BAR * 2 - 3} className="chart-value">
                {formatDuration(tool.p95Ms)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="muted">
        Bars: calls (failed in red); below, p50 (dark) and p95 (light) duration. {usage.calls} calls, {usage.failed} failed.
      </figcaption>
    </figure>
  );
}
