import { Module } from '@nestjs/common';
import { ToolsetStoreModule, WorkflowStoreModule } from '#workflow/nest';
import { CallTool } from './call-tool.js';
import { CheckToolset } from './check-toolset.js';
import { CreateToolset, PreviewToolset } from './create-toolset.js';
import { DeleteToolset } from './delete-toolset.js';
import { FindToolsets } from './find-toolsets.js';
import { ImportToolsets } from './import-toolsets.js';
import { ToolsetChanges } from './toolset-changes.js';
import { ToolsetUsage } from './toolset-usage.js';
import { RefreshToolset } from './refresh-toolset.js';
import { ToolsetRefreshSchedule } from './refresh-schedule.js';
import { ToolsetListing } from './toolset-listing.js';
import { ToolsetsController } from './toolsets.controller.js';
import { UpdateToolset } from './update-toolset.js';
import { AuthorizeToolset, ToolsetAuthStates } from './authorize-toolset.js';
import { OAuthController } from './oauth.controller.js';
import { ToolsetOAuthListing } from './toolset-oauth-listing.js';
import { RunsModule } from '../runs/runs.module.js';

/** REST for toolsets (SPEC §2). */
@Module({
  imports: [ToolsetStoreModule, WorkflowStoreModule, RunsModule],
  controllers: [ToolsetsController, OAuthController],
  providers: [
    ToolsetListing,
    CreateToolset,
    PreviewToolset,
    FindToolsets,
    UpdateToolset,
    RefreshToolset,
    DeleteToolset,
    CallTool,
    ImportToolsets,
    CheckToolset,
    ToolsetUsage,
    ToolsetChanges,
    ToolsetRefreshSchedule,
    ToolsetOAuthListing,
    AuthorizeToolset,
    ToolsetAuthStates,
  ],
})
export class ToolsetsModule {}
