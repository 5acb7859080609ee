import { pageQuerySchema } from '../common/pagination.js';
import { idParams, pageOf, type RouteDescription } from '../common/api-route.js';
import { createProviderBody, updateProviderBody } from './dto/provider-requests.js';
import { providerSchema } from './dto/provider-responses.js';

/** How the /providers routes describe themselves in the OpenAPI document (`@ApiRoute(providerRoutes.x)`). */
export const providerRoutes = {
  create: {
    summary: 'Register an OpenAI-compatible endpoint for llm and agent nodes',
    body: createProviderBody,
    responses: { 201: providerSchema },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  list: {
    summary: 'List providers, newest first',
    query: pageQuerySchema,
    responses: { 200: pageOf(providerSchema) },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  get: {
    summary: 'A provider (its API key shown as "***")',
    params: idParams,
    responses: { 200: providerSchema },
    errors: { 404: ['NOT_FOUND'] },
  },
  update: {
    summary: 'Change a provider',
    params: idParams,
    body: updateProviderBody,
    responses: { 200: providerSchema },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'] },
  },
  remove: {
    summary: "Delete a provider (refused while a workflow's latest version uses it)",
    params: idParams,
    responses: { 204: { description: 'Deleted' } },
    errors: { 404: ['NOT_FOUND'], 409: ['PROVIDER_IN_USE'] },
  },
} satisfies Record<string, RouteDescription>;
