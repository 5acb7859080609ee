import { z } from 'zod';
import { typedFieldSchema } from '../toolsets/dto/toolset-responses.js';

/** What GET /node-types answers for one type (NodeTypeDescription from the type's `describeType()`). */
export const nodeTypeSchema = z
  .object({
    type: z.string().meta({ description: 'The name a node gives in `type`', example: 'mcpTool' }),
    title: z.string(),
    description: z.string(),
    configSchema: z
      .union([z.record(z.string(), z.unknown()), z.boolean()])
      .meta({ description: "JSON Schema (2020-12) of the node's config" }),
    handles: z.array(z.string()).meta({
      description: 'Handles it can activate on success (`branch:<id>` stands for one per configured branch); `error` comes with catchError',
    }),
    inputs: z.array(typedFieldSchema).optional().meta({ description: 'Absent when the inputs depend on config (a tool) or are free-form' }),
    outputs: z.array(typedFieldSchema).optional().meta({ description: 'Absent when the outputs depend on config' }),
  })
  .meta({ id: 'NodeType' });

export const nodeTypeListSchema = z.object({ items: z.array(nodeTypeSchema) });

export type NodeTypeView = z.infer<typeof nodeTypeSchema>;
