import { Injectable, Logger } from '@nestjs/common';
import { ApiKeyRepository, WorkflowRepository } from '#workflow/nest';
import { InvalidRequestError } from '../common/api-errors.js';
import { generateApiKey } from './api-key-token.js';
import type { CreateApiKeyBody } from './dto/api-key-requests.js';
import { apiKeyView, type ApiKeyView } from './dto/api-key-views.js';

/** POST /api-keys: a new random key, stored as its hash; the answer is the only time the key is shown. */
@Injectable()
export class CreateApiKey {
  private readonly logger = new Logger(CreateApiKey.name);

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly workflows: WorkflowRepository,
  ) {}

  /** `createdBy`: the key that asked, or null for the operator's one-off command. */
  async execute(body: CreateApiKeyBody, createdBy: string | null): Promise<ApiKeyView & { key: string }> {
    await this.refuseUnknownWorkflows(body.workflows ?? []);
    const { key, hash, prefix } = generateApiKey();
    const record = await this.keys.create({
      name: body.name,
      hash,
      prefix,
      scopes: body.scopes,
      workflows: body.workflows ?? null,
      mcpServers: body.mcpServers ?? null,
      expiresAt: body.expiresAt ?? null,
      createdBy,
    });
    this.logger.log({ apiKeyId: record.id, scopes: record.scopes, limited: record.workflows !== null }, 'API key created');
    return { ...apiKeyView(record), key };
  }

  /** A limit to a workflow that does not exist is a mistake (a wrong id), refused with its path. */
  private async refuseUnknownWorkflows(ids: readonly string[]): Promise<void> {
    const live = await Promise.all(ids.map((id) => this.workflows.findLive(id)));
    const problems = ids.flatMap((id, index) =>
      live[index] ? [] : [{ path: `/workflows/${index}`, code: 'UNKNOWN_WORKFLOW', message: `workflow ${id} does not exist` }],
    );
    if (problems.length) throw new InvalidRequestError(problems, 'The request body is invalid');
  }
}
