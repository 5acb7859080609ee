import { Module } from '@nestjs/common';
import { ToolsetStoreModule } from '#workflow';
import { CallTool } from './call-tool.js';
import { CreateToolset, PreviewToolset } from './create-toolset.js';
import { DeleteToolset } from './delete-toolset.js';
import { FindToolsets } from './find-toolsets.js';
import { RefreshToolset } from './refresh-toolset.js';
import { ToolsetListing } from './toolset-listing.js';
import { TOOLSET_USAGE, WorkflowsToolsetUsage } from './toolset-usage.js';
import { ToolsetsController } from './toolsets.controller.js';
import { UpdateToolset } from './update-toolset.js';

/** REST for toolsets (SPEC §2). `TOOLSET_USAGE` may be overridden by the workflows feature. */
@Module({
  imports: [ToolsetStoreModule],
  controllers: [ToolsetsController],
  providers: [
    ToolsetListing,
    CreateToolset,
    PreviewToolset,
    FindToolsets,
    UpdateToolset,
    RefreshToolset,
    DeleteToolset,
    CallTool,
    { provide: TOOLSET_USAGE, useClass: WorkflowsToolsetUsage },
  ],
})
export class ToolsetsModule {}
