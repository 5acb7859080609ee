import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ApiKeyRepository } from '#workflow/nest';

/** How often a process re-reads the keys of its open streams: a revoked or expired key's streams end within about this. */
export const STREAM_KEY_CHECK_MS = 2000;

type End = () => void;

/**
 * Open answers that outlive their request's key check (SSE streams of run events, MCP streams):
 * each is held under its key, and one read every STREAM_KEY_CHECK_MS per process (only while
 * something is held) ends every answer whose key was revoked, expired or deleted since. Every API
 * process checks its own streams against the store, so a revocation on one process ends the
 * streams on all of them.
 */
@Injectable()
export class KeyBoundStreams implements OnModuleDestroy {
  private readonly logger = new Logger(KeyBoundStreams.name);
  private readonly held = new Map<string, Set<End>>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(private readonly keys: ApiKeyRepository) {}

  /** Holds `end` under `keyId` until the returned release is called (call it when the answer closes). */
  hold(keyId: string, end: End): () => void {
    let ends = this.held.get(keyId);
    if (!ends) this.held.set(keyId, (ends = new Set()));
    ends.add(end);
    this.timer ??= setInterval(() => void this.check(), STREAM_KEY_CHECK_MS).unref();
    return () => this.release(keyId, end);
  }

  /** Ends now every answer held under a key (the revocation's own process need not wait for the check). */
  endAll(keyId: string): void {
    const ends = this.held.get(keyId);
    this.held.delete(keyId);
    for (const end of ends ?? []) this.endQuietly(end);
    this.stopWhenIdle();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private release(keyId: string, end: End): void {
    const ends = this.held.get(keyId);
    if (!ends?.delete(end) || ends.size > 0) return;
    this.held.delete(keyId);
    this.stopWhenIdle();
  }

  private async check(): Promise<void> {
    if (this.checking || this.held.size === 0) return;
    this.checking = true;
    try {
      const usable = new Set(await this.keys.usableIds([...this.held.keys()], new Date()));
      for (const keyId of [...this.held.keys()]) if (!usable.has(keyId)) this.endAll(keyId);
    } catch (error) {
      // The store is away: the streams stay until the next check can tell.
      this.logger.warn({ err: error }, 'could not re-check the keys of open streams');
    } finally {
      this.checking = false;
    }
  }

  private endQuietly(end: End): void {
    try {
      end();
    } catch (error) {
      this.logger.warn({ err: error }, 'could not end a stream of a revoked key');
    }
  }

  private stopWhenIdle(): void {
    if (this.held.size > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
