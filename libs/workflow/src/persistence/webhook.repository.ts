import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { fromJsonText, toJsonText } from './json-field.js';
import type { HookResponse, HookVerification } from './trigger-vocabulary.js';
import { WEBHOOK_MODEL, type WebhookDoc } from './webhook.schema.js';

/** Input name → where its value is in a delivery (`body.issue.title`, `headers.x-github-event`). */
export type HookInputMapping = Record<string, string>;

export interface WebhookRecord {
  id: string;
  workflowId: string;
  verify: HookVerification;
  /** Sealed: open it with the SecretBox to check a delivery; never shown after creation. */
  sealedSecret: string;
  /** Undefined: the body (a JSON object) is the inputs. */
  inputs?: HookInputMapping;
  respond: HookResponse;
  createdAt: Date;
  updatedAt: Date;
}

export type NewWebhook = Omit<WebhookRecord, 'id' | 'createdAt' | 'updatedAt'>;

/** The most hooks one workflow's list shows (a workflow has a handful; ids are random, so the list is not cursor-paged). */
export const WEBHOOKS_LISTED = 500;

function recordOf(doc: WebhookDoc): WebhookRecord {
  return {
    id: doc._id,
    workflowId: doc.workflowId,
    verify: doc.verify,
    sealedSecret: doc.secret,
    ...(doc.inputs !== undefined && { inputs: fromJsonText<HookInputMapping>(doc.inputs, {}) }),
    respond: doc.respond,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** A hook id: 24 random bytes, the URL's only secret part besides the signature (`wh_` + 32 base64url characters). */
export function newWebhookId(): string {
  return `wh_${randomBytes(24).toString('base64url')}`;
}

/** Inbound webhooks (`webhooks`), handed out as plain records. */
@Injectable()
export class WebhookRepository {
  constructor(@InjectModel(WEBHOOK_MODEL) private readonly model: Model<WebhookDoc>) {}

  async create(hook: NewWebhook): Promise<WebhookRecord> {
    const created = await this.model.create({
      _id: newWebhookId(),
      workflowId: hook.workflowId,
      verify: hook.verify,
      secret: hook.sealedSecret,
      ...(hook.inputs && { inputs: toJsonText(hook.inputs) }),
      respond: hook.respond,
    });
    return recordOf(created.toObject());
  }

  async findById(id: string): Promise<WebhookRecord | undefined> {
    const doc = await this.model.findById(id).lean<WebhookDoc>().exec();
    return doc ? recordOf(doc) : undefined;
  }

  /** The workflow's hooks, newest first. */
  async ofWorkflow(workflowId: string): Promise<WebhookRecord[]> {
    const docs = await this.model.find({ workflowId }).sort({ createdAt: -1 }).limit(WEBHOOKS_LISTED).lean<WebhookDoc[]>().exec();
    return docs.map(recordOf);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.model.deleteOne({ _id: id }).exec()).deletedCount === 1;
  }

  async deleteOf(workflowId: string): Promise<void> {
    await this.model.deleteMany({ workflowId }).exec();
  }
}
