import { z } from 'zod';
import type { RouteDescription } from '../common/api-route.js';
import { oauthCallbackSchema } from './dto/toolset-responses.js';

// Bounded so that a callback URL, percent-encoded, stays within Node's 16 KB request head
// (a longer one is answered 431 before any route sees it).
export const oauthCallbackQuery = z.object({
  state: z.string().min(1).max(128),
  code: z.string().min(1).max(512).optional(),
  iss: z.string().max(256).optional(),
  error: z.string().max(64).optional(),
  error_description: z.string().max(256).optional(),
});
export type OAuthCallbackQuery = z.output<typeof oauthCallbackQuery>;

/** How the /oauth routes describe themselves in the OpenAPI document. */
export const oauthRoutes = {
  callback: {
    summary:
      "OAuth redirect target: stores the tokens (sealed), then lists the toolset's tools, or resumes the run that waited for an end user's authorization (public; the single-use state binds it)",
    public: true,
    query: oauthCallbackQuery,
    responses: { 200: oauthCallbackSchema },
    errors: {
      400: ['VALIDATION_FAILED', 'OAUTH_STATE_INVALID', 'OAUTH_AUTHORIZATION_DENIED'],
      422: ['MCP_AUTH_FAILED', 'MCP_UNREACHABLE'],
    },
  },
  clientMetadata: {
    summary: "mcpflow's OAuth Client ID Metadata Document (its URL is the client_id where servers support it)",
    public: true,
    responses: { 200: z.looseObject({ client_id: z.string(), redirect_uris: z.array(z.string()) }) },
  },
} satisfies Record<string, RouteDescription>;
