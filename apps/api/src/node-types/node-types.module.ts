import { Module } from '@nestjs/common';
import { ListNodeTypes } from './list-node-types.js';
import { NodeTypesController } from './node-types.controller.js';

/** GET /node-types (the registry comes from the global NodeRegistryModule). */
@Module({
  controllers: [NodeTypesController],
  providers: [ListNodeTypes],
})
export class NodeTypesModule {}
