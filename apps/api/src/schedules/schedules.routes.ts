import { z } from 'zod';
import { pageQuerySchema } from '../common/pagination.js';
import { pageOf, type RouteDescription } from '../common/api-route.js';
import { createScheduleBody, scheduleParams, updateScheduleBody } from './dto/schedule-requests.js';
import { scheduleSchema } from './dto/schedule-responses.js';

const workflowParams = z.object({ id: z.string().meta({ description: 'The workflow id' }) });
const invalid = ['VALIDATION_FAILED'] as const;

/** How the schedule routes describe themselves in the OpenAPI document. */
export const scheduleRoutes = {
  create: {
    summary: 'Start the workflow on a cron expression or an interval',
    description:
      'One firing = one run (`source: "schedule"`), however many API processes and workers run. `catchUp` says what happens to a firing missed while nothing could take it, `overlap` what a firing does while an earlier run is unfinished.',
    tags: ['schedules'],
    params: workflowParams,
    body: createScheduleBody,
    responses: { 201: scheduleSchema },
    errors: { 400: invalid, 404: ['NOT_FOUND'] },
  },
  list: {
    summary: "The workflow's schedules, newest first",
    tags: ['schedules'],
    params: workflowParams,
    query: pageQuerySchema,
    responses: { 200: pageOf(scheduleSchema) },
    errors: { 400: invalid, 404: ['NOT_FOUND'] },
  },
  get: {
    summary: 'A schedule, its next firing and its last runs',
    tags: ['schedules'],
    params: scheduleParams,
    responses: { 200: scheduleSchema },
    errors: { 400: invalid, 404: ['NOT_FOUND'] },
  },
  update: {
    summary: 'Change a schedule (fields given replace the stored ones; inputs are checked again)',
    tags: ['schedules'],
    params: scheduleParams,
    body: updateScheduleBody,
    responses: { 200: scheduleSchema },
    errors: { 400: invalid, 404: ['NOT_FOUND'] },
  },
  remove: {
    summary: 'Delete a schedule (it fires no more)',
    tags: ['schedules'],
    params: scheduleParams,
    responses: { 204: { description: 'Deleted' } },
    errors: { 400: invalid, 404: ['NOT_FOUND'] },
  },
} satisfies Record<string, RouteDescription>;
