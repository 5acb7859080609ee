import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('mcpflow');

/**
 * One client span per outbound request, named for the MCP method it carries (`mcp tools/call`)
 * or `http <METHOD>`, with the W3C `traceparent` put on the request so that a traced MCP server
 * joins the run's trace. With no tracer provider registered the span is the API's no-op one and
 * nothing is added to the request.
 */
export async function withRequestSpan(
  url: URL,
  method: string,
  headers: Headers,
  body: Uint8Array | undefined,
  send: () => Promise<Response>,
): Promise<Response> {
  const span = tracer.startSpan(`http ${method}`, {
    kind: SpanKind.CLIENT,
    attributes: { 'http.request.method': method, 'server.address': url.hostname, 'server.port': Number(url.port) || undefined },
  });
  if (!span.isRecording()) {
    span.end();
    return send();
  }
  const rpc = rpcMethodOf(body);
  if (rpc) {
    span.updateName(`mcp ${rpc}`);
    span.setAttribute('mcp.method.name', rpc);
  }
  propagation.inject(trace.setSpan(context.active(), span), headers, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
  try {
    const response = await send();
    span.setAttribute('http.response.status_code', response.status);
    if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
    return response;
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}

/** The JSON-RPC method of an MCP message body (the first one of a batch); undefined for anything else. */
function rpcMethodOf(body: Uint8Array | undefined): string | undefined {
  if (!body || body.byteLength === 0 || body.byteLength > 1 << 20) return undefined;
  try {
    const message: unknown = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
    const first: unknown = Array.isArray(message) ? message[0] : message;
    const method = first && typeof first === 'object' ? (first as { method?: unknown }).method : undefined;
    return typeof method === 'string' ? method : undefined;
  } catch {
    return undefined;
  }
}
