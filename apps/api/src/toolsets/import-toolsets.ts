import { Injectable, Logger } from '@nestjs/common';
import type { TargetKind } from '#mcp';
import { ApiError } from '../common/api-errors.js';
import { CreateToolset, PreviewToolset } from './create-toolset.js';
import { importEntry, type ImportToolsetsBody } from './dto/toolset-import.js';
import type { Requester } from './requester.js';
import type { ConnectionProblem } from './toolset-errors.js';

/** Entries connected to at once: an import of many `npx` servers should not start them all together. */
const CONCURRENCY = 4;

/** Why an entry was not created, by family; `code` has the exact one. */
export type ImportFailureReason =
  'invalid' | 'stdio-disabled' | 'unreachable' | 'auth-failed' | 'not-mcp' | 'timeout' | 'blocked' | 'forbidden' | 'error';

const REASON_BY_CODE: Record<string, ImportFailureReason> = {
  VALIDATION_FAILED: 'invalid',
  STDIO_DISABLED: 'stdio-disabled',
  STDIO_COMMAND_NOT_ALLOWED: 'stdio-disabled',
  STDIO_ADMIN_REQUIRED: 'forbidden',
  MCP_UNREACHABLE: 'unreachable',
  MCP_AUTH_FAILED: 'auth-failed',
  MCP_PROTOCOL_ERROR: 'not-mcp',
  MCP_TIMEOUT: 'timeout',
  OUTBOUND_BLOCKED: 'blocked',
  FORBIDDEN: 'forbidden',
};

export type ImportItem =
  | { name: string; status: 'created' | 'valid'; toolsetId?: string; kind: TargetKind; transport: string; toolCount: number }
  | { name: string; status: 'failed'; reason: ImportFailureReason; code: string; message: string; errors?: ConnectionProblem[] };

export interface ImportAnswer {
  dryRun: boolean;
  created: number;
  failed: number;
  items: ImportItem[];
}

/**
 * POST /toolsets/import: one toolset per server entry, each listed first and inserted only once
 * its listing worked (one insert: a failed entry leaves nothing behind); with `dryRun`, the same
 * checks and connections, nothing saved. Entries answer in the file's order.
 */
@Injectable()
export class ImportToolsets {
  private readonly logger = new Logger(ImportToolsets.name);

  constructor(
    private readonly createToolset: CreateToolset,
    private readonly previewToolset: PreviewToolset,
  ) {}

  /** `requester`: the API key asking (each created toolset's `createdBy`; stdio entries need `admin`). */
  async execute(body: ImportToolsetsBody, dryRun: boolean, requester: Requester, signal?: AbortSignal): Promise<ImportAnswer> {
    const items: ImportItem[] = new Array<ImportItem>(body.entries.length);
    let next = 0;
    const lane = async () => {
      for (let index = next++; index < body.entries.length; index = next++) {
        const [name, entry] = body.entries[index];
        items[index] = await this.importOne(body.root, name, entry, dryRun, requester, signal);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, body.entries.length) }, lane));
    const created = items.filter((item) => item.status !== 'failed').length;
    if (!dryRun) this.logger.log({ created, failed: items.length - created }, 'toolsets imported');
    return { dryRun, created: dryRun ? 0 : created, failed: items.length - created, items };
  }

  private async importOne(
    root: string,
    name: string,
    entry: unknown,
    dryRun: boolean,
    requester: Requester,
    signal?: AbortSignal,
  ): Promise<ImportItem> {
    try {
      const create = importEntry(root, name, entry);
      if (dryRun) {
        const preview = await this.previewToolset.execute(create, requester, signal);
        return { name, status: 'valid', kind: preview.kind, transport: preview.transport, toolCount: preview.toolCount };
      }
      const toolset = await this.createToolset.execute(create, requester, signal);
      return {
        name,
        status: 'created',
        toolsetId: toolset.id,
        kind: toolset.kind,
        transport: toolset.resolvedTransport,
        toolCount: toolset.toolCount,
      };
    } catch (error) {
      // Never thrown on: the other entries may already be created, and the answer must say which.
      if (!(error instanceof ApiError)) {
        this.logger.error({ err: error, entry: name }, 'import of a server failed unexpectedly');
        return { name, status: 'failed', reason: 'error', code: 'INTERNAL_ERROR', message: 'Internal error' };
      }
      const failed: ImportItem = {
        name,
        status: 'failed',
        reason: REASON_BY_CODE[error.code] ?? 'error',
        code: error.code,
        message: error.message,
      };
      if (error.errors) failed.errors = error.errors;
      return failed;
    }
  }
}
