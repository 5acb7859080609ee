import mongoose from 'mongoose';
import type { AppConfig } from '#workflow/nest';
import { greeting } from '../access/support.js';

/** A trigger's runs as stored (every field the API shows, straight from `runs`). */
export interface StoredTriggeredRun {
  id: string;
  status: string;
  source?: string;
  scheduleId?: string;
  scheduledFor?: Date;
  webhookId?: string;
  deliveryId?: string;
  createdAt: Date;
}

export async function storedRuns(config: AppConfig, filter: Record<string, unknown>): Promise<StoredTriggeredRun[]> {
  const connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    const docs = await connection.collection('runs').find(filter).sort({ _id: 1 }).toArray();
    return docs.map((doc) => ({ ...(doc as unknown as StoredTriggeredRun), id: String(doc._id) }));
  } finally {
    await connection.close();
  }
}

/** Raw documents of a collection, as JSON text (to prove a secret is nowhere in them). */
export async function storedText(config: AppConfig, collection: string, filter: Record<string, unknown> = {}): Promise<string> {
  const connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    return JSON.stringify(await connection.collection(collection).find(filter).toArray());
  } finally {
    await connection.close();
  }
}

export async function storedCount(config: AppConfig, collection: string, filter: Record<string, unknown> = {}): Promise<number> {
  const connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    return await connection.collection(collection).countDocuments(filter);
  } finally {
    await connection.close();
  }
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** start → template → end (`greeting` of the access suite), with a secret input beside `who`. */
export const greetingFlow = {
  ...greeting('greeting'),
  inputSchema: {
    type: 'object',
    properties: { who: { type: 'string' }, token: { type: 'string', writeOnly: true } },
    required: ['who'],
  },
};
