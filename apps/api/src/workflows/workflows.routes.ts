import { pageQuerySchema } from '../common/pagination.js';
import { idParams, pageOf, type RouteDescription } from '../common/api-route.js';
import { workflowBodySchema } from './dto/workflow-requests.js';
import {
  validationReportSchema,
  versionParams,
  versionSummarySchema,
  workflowSchema,
  workflowSummarySchema,
  workflowWithProblemsSchema,
  workflowVersionSchema,
} from './dto/workflow-responses.js';

/** How the /workflows routes describe themselves in the OpenAPI document (`@ApiRoute(workflowRoutes.x)`). */

const INVALID = { 400: ['VALIDATION_FAILED', 'WORKFLOW_INVALID'] } as const;

export const workflowRoutes = {
  create: {
    summary: 'Create a workflow (version 1); an invalid graph answers every problem',
    body: workflowBodySchema,
    responses: { 201: workflowSchema },
    errors: INVALID,
  },
  validate: {
    summary: 'Check a workflow without saving it',
    body: workflowBodySchema,
    responses: { 200: validationReportSchema },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  list: {
    summary: 'List workflows, newest first',
    query: pageQuerySchema,
    responses: { 200: pageOf(workflowSummarySchema) },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  get: {
    summary: 'The latest version of a workflow, with the problems it would meet if run now (tools changed since it was saved)',
    params: idParams,
    responses: { 200: workflowWithProblemsSchema },
    errors: { 404: ['NOT_FOUND'] },
  },
  update: {
    summary: 'Store the next immutable version',
    params: idParams,
    body: workflowBodySchema,
    responses: { 200: workflowSchema },
    errors: { ...INVALID, 404: ['NOT_FOUND'] },
  },
  remove: {
    summary: 'Delete a workflow (soft: its runs stay readable)',
    params: idParams,
    responses: { 204: { description: 'Deleted' } },
    errors: { 404: ['NOT_FOUND'] },
  },
  listVersions: {
    summary: "A workflow's versions, newest first",
    params: idParams,
    query: pageQuerySchema,
    responses: { 200: pageOf(versionSummarySchema) },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'] },
  },
  getVersion: {
    summary: 'One version in full',
    params: versionParams,
    responses: { 200: workflowVersionSchema },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'] },
  },
} satisfies Record<string, RouteDescription>;
