import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { pageQuerySchema, type PageQuery } from '../common/pagination.js';
import { ZodPipe } from '../common/zod-validation.js';
import { CheckWorkflow } from './check-workflow.js';
import { CreateWorkflow } from './create-workflow.js';
import { DeleteWorkflow } from './delete-workflow.js';
import { versionParamSchema, workflowBodySchema, type VersionParam, type WorkflowBody } from './dto/workflow-requests.js';
import { FindWorkflows } from './find-workflows.js';
import { UpdateWorkflow } from './update-workflow.js';
import { workflowInvalid } from './workflow-checker.js';
import { ApiRoute } from '../openapi/api-route.js';
import { workflowRoutes } from './workflows.routes.js';

/** A body of the wrong shape is 400 `WORKFLOW_INVALID`, like a graph problem: one code for "this workflow cannot be saved". */
const workflowBodyPipe = new ZodPipe(workflowBodySchema, 'body', { invalid: workflowInvalid });

@Controller('workflows')
export class WorkflowsController {
  constructor(
    private readonly createWorkflow: CreateWorkflow,
    private readonly checkWorkflow: CheckWorkflow,
    private readonly findWorkflows: FindWorkflows,
    private readonly updateWorkflow: UpdateWorkflow,
    private readonly deleteWorkflow: DeleteWorkflow,
  ) {}

  @Post()
  @ApiRoute(workflowRoutes.create)
  create(@Body(workflowBodyPipe) body: WorkflowBody) {
    return this.createWorkflow.execute(body);
  }

  @Post('validate')
  @HttpCode(200)
  @ApiRoute(workflowRoutes.validate)
  validate(@Body() body: unknown) {
    return this.checkWorkflow.execute(body);
  }

  @Get()
  @ApiRoute(workflowRoutes.list)
  list(@Query(new ZodPipe(pageQuerySchema, 'query')) page: PageQuery) {
    return this.findWorkflows.list(page);
  }

  @Get(':id')
  @ApiRoute(workflowRoutes.get)
  get(@Param('id') id: string) {
    return this.findWorkflows.get(id);
  }

  @Put(':id')
  @ApiRoute(workflowRoutes.update)
  update(@Param('id') id: string, @Body(workflowBodyPipe) body: WorkflowBody) {
    return this.updateWorkflow.execute(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiRoute(workflowRoutes.remove)
  async remove(@Param('id') id: string): Promise<void> {
    await this.deleteWorkflow.execute(id);
  }

  @Get(':id/versions')
  @ApiRoute(workflowRoutes.listVersions)
  listVersions(@Param('id') id: string, @Query(new ZodPipe(pageQuerySchema, 'query')) page: PageQuery) {
    return this.findWorkflows.listVersions(id, page);
  }

  @Get(':id/versions/:version')
  @ApiRoute(workflowRoutes.getVersion)
  getVersion(@Param('id') id: string, @Param('version', new ZodPipe(versionParamSchema, 'path')) version: VersionParam) {
    return this.findWorkflows.getVersion(id, version);
  }
}
