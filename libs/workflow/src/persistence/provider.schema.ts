import { Schema, type Types } from 'mongoose';

/**
 * An LLM provider: any OpenAI-compatible endpoint. The API key is a secret like toolset header
 * values: stored sealed by the SecretBox (AES-256-GCM), opened only to make a model call.
 */
export const PROVIDER_MODEL = 'Provider';
export const PROVIDERS_COLLECTION = 'providers';

export interface ProviderDocument {
  _id: Types.ObjectId;
  name: string;
  baseURL: string;
  /** Sealed by the SecretBox; never the plaintext. */
  apiKey: string;
  /** Models offered to workflow authors (informative; any model name may be used). */
  models: string[];
  createdAt: Date;
  updatedAt: Date;
}

export const ProviderSchema = new Schema<ProviderDocument>(
  {
    name: { type: String, required: true },
    baseURL: { type: String, required: true },
    apiKey: { type: String, required: true },
    models: { type: [String], default: [] },
  },
  { collection: PROVIDERS_COLLECTION, timestamps: true, versionKey: false, minimize: false },
);
