import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { NodeExecutionRepository, RunRepository, type RunStreamEvent } from '#workflow/nest';
import { KeyBoundStreams } from '../api-keys/key-bound-streams.js';
import { NotFoundError } from '../common/api-errors.js';
import { RunEventStream } from './run-event-stream.js';
import { RunEventsHub } from './run-events-hub.js';

/** MongoDB re-check of an open stream (lost Redis messages, a run ended by the recovery sweep). */
const CHECK_MS = 2000;
/** A comment line now and then keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

/** `GET /runs/:id/events`: Server-Sent Events, replay from MongoDB then live from Redis. */
@Injectable()
export class StreamRunEvents {
  constructor(
    private readonly runs: RunRepository,
    private readonly executions: NodeExecutionRepository,
    private readonly hub: RunEventsHub,
    private readonly keyBound: KeyBoundStreams,
  ) {}

  /** The stream lasts while the run goes on and `keyId` (the caller's key) stays valid. */
  async execute(runId: string, keyId: string, req: Request, res: Response): Promise<void> {
    if (!(await this.runs.findById(runId))) throw new NotFoundError('Run', runId);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    const timers: NodeJS.Timeout[] = [];
    let unsubscribe = (): void => undefined;
    let release = (): void => undefined;
    const close = (): void => {
      timers.forEach(clearInterval);
      unsubscribe();
      release();
      if (!res.writableEnded) res.end();
    };
    const write = (event: RunStreamEvent): void => {
      if (!res.writableEnded) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    };
    const stream = new RunEventStream(
      runId,
      {
        run: () => this.runs.findById(runId),
        executionsAfter: (seq, run) => this.executions.logOf(run, seq),
      },
      write,
      close,
    );
    req.on('close', close);
    release = this.keyBound.hold(keyId, close);
    unsubscribe = await this.hub.subscribe(runId, (event) => void stream.live(event));
    if (res.writableEnded) return unsubscribe();
    timers.push(
      setInterval(() => void stream.check(), CHECK_MS),
      setInterval(() => res.writableEnded || res.write(': keep-alive\n\n'), HEARTBEAT_MS),
    );
    await stream.replay();
  }
}
