import { Inject, Injectable } from '@nestjs/common';
import type { NodeExecutor, NodeRegistry } from '#workflow';
import { NODE_REGISTRY } from '#workflow/nest';
import type { NodeTypeView } from './node-type-responses.js';

/** A type that does not describe itself is listed with its name only (and the default handle). */
function describe(executor: NodeExecutor): NodeTypeView {
  const described = executor.describeType?.();
  if (!described) return { type: executor.type, title: executor.type, description: '', configSchema: { type: 'object' }, handles: ['out'] };
  return { type: executor.type, ...described } as NodeTypeView;
}

/** GET /node-types: every node type this deployment registers, as it describes itself. */
@Injectable()
export class ListNodeTypes {
  private items?: NodeTypeView[];

  constructor(@Inject(NODE_REGISTRY) private readonly registry: NodeRegistry) {}

  execute(): { items: NodeTypeView[] } {
    // Types are registered at start-up and never change: described once.
    this.items ??= this.registry.types().map((type) => describe(this.registry.get(type) as NodeExecutor));
    return { items: this.items };
  }
}
