/**
 * OpenTelemetry traces, off unless asked for with the standard variables: `OTEL_TRACES_EXPORTER`
 * (other than `none`) or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true` wins. Everything else
 * (`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_TRACES_SAMPLER`…) is the Node SDK's
 * own reading of the environment. Off, nothing of the SDK is loaded and the spans below are the
 * API's no-op ones; the store and request hooks are not even installed.
 */
import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanKind,
} from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';

export const tracer = trace.getTracer('mcpflow');

let active = false;

/** Whether this process records traces (set by `startTracing`). */
export function tracingActive(): boolean {
  return active;
}

export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface TracingOptions {
  /** `OTEL_SERVICE_NAME` wins over it. */
  serviceName: string;
  /** Instead of the exporter the environment names (tests: an in-memory exporter); starts tracing whatever the environment says. */
  spanProcessors?: SpanProcessor[];
}

/**
 * Starts the Node SDK (tracer provider, W3C trace-context propagation, AsyncLocalStorage context)
 * when the environment asks for traces; returns its shutdown (flushes what is buffered).
 */
export async function startTracing(options: TracingOptions): Promise<() => Promise<void>> {
  if (!options.spanProcessors && !tracingRequested()) return async () => undefined;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? options.serviceName,
    instrumentations: [],
    ...(options.spanProcessors && { spanProcessors: options.spanProcessors }),
  });
  sdk.start();
  active = true;
  return async () => {
    active = false;
    await sdk.shutdown();
  };
}

/** The active trace context as W3C headers (`traceparent`, `tracestate`), to carry in a job; undefined when there is none. */
export function traceCarrier(from: Context = context.active()): Record<string, string> | undefined {
  if (!active) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** The context a carrier (a job's, a request's headers) continues; the root context without one. */
export function contextOf(carrier: Record<string, string | string[] | undefined> | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Parent context; the active one by default. */
  parent?: Context;
}

/** Runs `work` inside a new active span, which ends with it (an error marks it failed and is rethrown). */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  if (!active) return work(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(name, { kind: options.kind, attributes: options.attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
