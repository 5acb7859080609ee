import type { RouteDescription } from '../common/api-route.js';
import { nodeTypeListSchema } from './node-type-responses.js';

/** How the /node-types route describes itself in the OpenAPI document. */
export const nodeTypeRoutes = {
  list: {
    summary: 'Every node type a workflow can use: its config schema, handles, and its inputs and outputs when the type fixes them',
    responses: { 200: nodeTypeListSchema },
  },
} satisfies Record<string, RouteDescription>;
