import { Inject, Injectable } from '@nestjs/common';
import { compileSchema } from '#mcp';
import { nodeReferencesOf, validateWorkflow, type NodeRegistry, type ToolCatalog, type WorkflowDefinition } from '#workflow';
import {
  nestedSecretProblems,
  NODE_REGISTRY,
  ProviderRepository,
  ToolsetCatalog,
  ToolsetRepository,
  WorkflowRepository,
} from '#workflow/nest';
import { ApiError, InvalidRequestError, type ProblemDetail } from '../common/api-errors.js';
import { parseRequest, type InvalidRequest } from '../common/zod-validation.js';
import { workflowBodySchema, type WorkflowBody } from './dto/workflow-requests.js';
import type { ReferenceGrant } from './reference-grants.js';
import { secretHeaderProblems } from './secret-header-check.js';
import { pinCalledVersions, subWorkflowProblems, workflowCatalogFor, type SubWorkflowScope } from './sub-workflow-check.js';

/** A workflow body with problems, of shape or of graph: 400 `WORKFLOW_INVALID` (also the body pipe's error). */
export const workflowInvalid: InvalidRequest = (problems) =>
  new InvalidRequestError(problems, `The workflow has ${problems.length} problem(s)`, 'WORKFLOW_INVALID');

export interface WorkflowCheck {
  definition?: WorkflowDefinition;
  errors: ProblemDetail[];
}

function inputSchemaProblems(schema: Record<string, unknown> | undefined): ProblemDetail[] {
  if (schema === undefined) return [];
  if (schema.type !== undefined && schema.type !== 'object') {
    return [
      {
        path: '/inputSchema/type',
        code: 'INVALID_INPUT_SCHEMA',
        message: 'the inputs of a run are an object: inputSchema.type must be "object"',
      },
    ];
  }
  const compiled = compileSchema(schema);
  return compiled.ok
    ? []
    : [
        {
          path: `/inputSchema${compiled.path ?? ''}`,
          code: 'INVALID_INPUT_SCHEMA',
          message: `inputSchema does not compile: ${compiled.reason}`,
        },
      ];
}

/** The providers nodes name (their `references`): an unknown one is caught at save time, like an unknown toolset. */
async function providerProblems(
  definition: WorkflowDefinition,
  registry: NodeRegistry,
  providers: ProviderRepository,
  grant?: ReferenceGrant,
): Promise<ProblemDetail[]> {
  const named = nodeReferencesOf(registry, definition.nodes).filter((reference) => reference.kind === 'provider');
  const checks = named.map(async ({ id, path }): Promise<ProblemDetail[]> => {
    if ((!grant || grant.providerIds.has(id)) && (await providers.findById(id))) return [];
    return [{ path, code: 'UNKNOWN_PROVIDER', message: `provider "${id}" does not exist` }];
  });
  return (await Promise.all(checks)).flat();
}

/** A catalog in which the toolsets outside a grant do not exist: "not yours" reads exactly like "absent". */
function catalogWithin(catalog: ToolCatalog, grant: ReferenceGrant | undefined): ToolCatalog {
  if (!grant) return catalog;
  return {
    getTool: async (toolsetId, tool) => (grant.toolsetIds.has(toolsetId) ? catalog.getTool(toolsetId, tool) : undefined),
    listTools: async (toolsetId) => (grant.toolsetIds.has(toolsetId) ? catalog.listTools(toolsetId) : undefined),
  };
}

/** Every problem of a workflow body: its shape first, then (when the shape holds) graph, types, tools and providers. */
@Injectable()
export class WorkflowChecker {
  constructor(
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    private readonly catalog: ToolsetCatalog,
    private readonly providers: ProviderRepository,
    private readonly toolsets: ToolsetRepository,
    private readonly workflows: WorkflowRepository,
  ) {}

  /** Every problem of a body of any shape (`POST /workflows/validate`): its shape first, then the rest. */
  async check(body: unknown): Promise<WorkflowCheck> {
    let parsed: WorkflowBody;
    try {
      parsed = parseRequest(workflowBodySchema, body);
    } catch (error) {
      if (error instanceof ApiError && error.errors) return { errors: error.errors };
      throw error;
    }
    const errors = await this.problemsOf(parsed);
    return errors.length === 0 ? { definition: parsed as WorkflowDefinition, errors } : { errors };
  }

  /**
   * The definition of a body of the right shape (parsed by the controller), or a 400 `WORKFLOW_INVALID` listing every problem.
   * `grant`: a workflow-limited key's; toolsets and providers outside it are answered as absent.
   * `calls`: the workflow being saved and the workflows the key may run (what `workflow` nodes may call).
   */
  async require(body: WorkflowBody, grant?: ReferenceGrant, calls: SubWorkflowScope = {}): Promise<WorkflowDefinition> {
    const errors = await this.problemsOf(body, grant, calls);
    if (errors.length > 0) throw workflowInvalid(errors, 'body');
    // What a `workflow` node calls without a version is pinned now: a later version of the child changes nothing here.
    return pinCalledVersions(body as WorkflowDefinition, this.registry, this.workflows);
  }

  /**
   * What keeps a stored version from running as it was saved: it was valid then and cannot change,
   * so every problem found now comes from outside — a tool that disappeared, a tool whose input
   * schema changed incompatibly (a new required input, another type), a deleted toolset or provider.
   */
  problemsNow(definition: WorkflowDefinition): Promise<ProblemDetail[]> {
    return this.problemsOf(definition as WorkflowBody);
  }

  /** Graph, types, tools, providers and the input schema of a body whose shape holds. */
  private async problemsOf(parsed: WorkflowBody, grant?: ReferenceGrant, calls: SubWorkflowScope = {}): Promise<ProblemDetail[]> {
    const definition = parsed as WorkflowDefinition;
    const [issues, unknownProviders, secretHeaders, subWorkflows] = await Promise.all([
      validateWorkflow(definition, {
        registry: this.registry,
        catalog: catalogWithin(this.catalog, grant),
        workflows: workflowCatalogFor(this.workflows, calls),
      }),
      providerProblems(definition, this.registry, this.providers, grant),
      secretHeaderProblems(definition, this.registry, this.toolsets, grant?.toolsetIds),
      subWorkflowProblems(definition, this.registry, this.workflows, calls),
    ]);
    return [
      ...inputSchemaProblems(parsed.inputSchema),
      ...issues,
      ...nestedSecretProblems(definition, this.registry),
      ...unknownProviders,
      ...secretHeaders,
      ...subWorkflows,
    ];
  }
}
