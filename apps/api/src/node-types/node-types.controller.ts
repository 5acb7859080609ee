import { Controller, Get } from '@nestjs/common';
import { RequireScope } from '../api-keys/access.decorators.js';
import { ApiRoute } from '../common/api-route.js';
import { ListNodeTypes } from './list-node-types.js';
import { nodeTypeRoutes } from './node-types.routes.js';

/** The node types of this deployment, for API clients and the console's palette and config forms. */
@Controller('node-types')
export class NodeTypesController {
  constructor(private readonly listNodeTypes: ListNodeTypes) {}

  @Get()
  @ApiRoute(nodeTypeRoutes.list)
  @RequireScope('read', 'write', 'run')
  list() {
    return this.listNodeTypes.execute();
  }
}
