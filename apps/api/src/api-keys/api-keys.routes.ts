import { z } from 'zod';
import { pageQuerySchema } from '../common/pagination.js';
import { idParams, pageOf, type RouteDescription } from '../common/api-route.js';
import { createApiKeyBody } from './dto/api-key-requests.js';

const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  workflows: z.array(z.string()).nullable(),
  mcpServers: z.array(z.string()).nullable(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
});

/** How the /api-keys routes describe themselves in the OpenAPI document (`@ApiRoute(apiKeyRoutes.x)`). */
export const apiKeyRoutes = {
  create: {
    summary: 'Create an API key (the answer is the only time the key is shown)',
    body: createApiKeyBody,
    responses: { 201: apiKeySchema.extend({ key: z.string() }) },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  list: {
    summary: 'List API keys, newest first',
    query: pageQuerySchema,
    responses: { 200: pageOf(apiKeySchema) },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  get: {
    summary: 'An API key (never the key, never its hash)',
    params: idParams,
    responses: { 200: apiKeySchema },
    errors: { 404: ['NOT_FOUND'] },
  },
  revoke: {
    summary: 'Revoke an API key: refused at once on every API process',
    params: idParams,
    responses: { 204: { description: 'Revoked' } },
    errors: { 404: ['NOT_FOUND'] },
  },
} satisfies Record<string, RouteDescription>;
