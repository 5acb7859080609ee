import { Inject, Injectable } from '@nestjs/common';
import type { NodeRegistry, WorkflowDefinition } from '#workflow';
import { ConfigSecretsRefused, NODE_REGISTRY, SECRET_BOX, sealConfigSecrets, type SealDefinition, type SecretBox } from '#workflow/nest';
import { workflowInvalid } from './workflow-checker.js';

/**
 * Hands a checked definition to the store sealed: its node types' secret config values (`http`
 * headers written `{"secret": …}`) encrypted, `"***"` in their place. A value the store cannot
 * keep (`"***"` with nothing stored, or for another origin) is a 400 like any other problem.
 */
@Injectable()
export class WorkflowSealing {
  constructor(
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async save<T>(definition: WorkflowDefinition, store: (seal: SealDefinition) => Promise<T>): Promise<T> {
    try {
      return await store((previous) => sealConfigSecrets(definition, this.registry, this.box, previous));
    } catch (error) {
      if (error instanceof ConfigSecretsRefused) throw workflowInvalid(error.problems, 'body');
      throw error;
    }
  }
}
