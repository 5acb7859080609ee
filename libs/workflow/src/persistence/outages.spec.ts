import { describe, expect, it } from '@jest/globals';
import { mongo } from 'mongoose';
import { outageOf } from './outages.js';

describe('outageOf', () => {
  it('names the store for the MongoDB driver’s connection errors, also wrapped as a cause', () => {
    expect(outageOf(new mongo.MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017'))).toBe('STORE_UNAVAILABLE');
    expect(outageOf(new mongo.MongoNotConnectedError('not connected'))).toBe('STORE_UNAVAILABLE');
    const wrapped = new Error('could not load the key', { cause: new mongo.MongoNetworkTimeoutError('timed out') });
    expect(outageOf(wrapped)).toBe('STORE_UNAVAILABLE');
  });

  it('names the queue for ioredis’s errors while Redis is away', () => {
    expect(outageOf(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe('QUEUE_UNAVAILABLE');
    expect(outageOf(new Error('Connection is closed.'))).toBe('QUEUE_UNAVAILABLE');
    expect(outageOf(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toBe('QUEUE_UNAVAILABLE');
    const maxRetries = Object.assign(new Error('Reached the max retries per request limit'), { name: 'MaxRetriesPerRequestError' });
    expect(outageOf(maxRetries)).toBe('QUEUE_UNAVAILABLE');
  });

  describe('FerretDB v1 answering for a PostgreSQL that is down (as seen by the chaos harness)', () => {
    // The MongoDB driver's own error, built from the reply FerretDB sent: `{ok: 0, code: 1, codeName: 'InternalError', errmsg}`.
    const ferretDbReply = (errmsg: string) => new mongo.MongoServerError({ ok: 0, code: 1, codeName: 'InternalError', errmsg });
    const handler = '[msg_find.go:344 handler.handleMaxTimeMSError] [collection.go:109 postgresql.(*collection).Query] ';

    it('names the store while PostgreSQL refuses connections (killed)', () => {
      const refused =
        handler +
        'failed to connect to `user=postgres database=ferretdb`:\n' +
        '\t127.0.0.1:38561 (127.0.0.1): dial error: dial tcp 127.0.0.1:38561: connect: connection refused\n' +
        '\t127.0.0.1:38561 (127.0.0.1): dial error: dial tcp 127.0.0.1:38561: connect: connection refused';
      expect(outageOf(ferretDbReply(refused))).toBe('STORE_UNAVAILABLE');
    });

    it('names the store while PostgreSQL is starting up or not yet accepting connections', () => {
      for (const state of ['the database system is starting up', 'the database system is not yet accepting connections']) {
        const starting =
          handler +
          'failed to connect to `user=postgres database=ferretdb`:\n' +
          '\t127.0.0.1:38561 (127.0.0.1): tls error: server refused TLS connection\n' +
          `\t127.0.0.1:38561 (127.0.0.1): server error: FATAL: ${state} (SQLSTATE 57P03)`;
        expect(outageOf(ferretDbReply(starting))).toBe('STORE_UNAVAILABLE');
      }
    });

    it('names the store when a query’s connection is cut by the postmaster’s death', () => {
      const cut =
        '[msg_find.go:344 handler.handleMaxTimeMSError] [values.go:74 iterator.ConsumeValuesN[...]] ' +
        '[projection_iterator.go:60 common.(*projectionIterator).Next] [filter_iterator.go:52 common.(*filterIterator).Next] ' +
        '[query_iterator.go:92 postgresql.(*queryIterator).Next] FATAL: terminating connection due to unexpected postmaster exit (SQLSTATE 57P01)';
      expect(outageOf(ferretDbReply(cut))).toBe('STORE_UNAVAILABLE');
    });

    it('names the store when the link to PostgreSQL drops under a query (pgx’s unexpected EOF)', () => {
      const dropped =
        '[msg_find.go:344 handler.handleMaxTimeMSError] [query_iterator.go:92 postgresql.(*queryIterator).Next] unexpected EOF';
      expect(outageOf(ferretDbReply(dropped))).toBe('STORE_UNAVAILABLE');
      expect(outageOf(ferretDbReply(handler + 'decoding document: unexpected EOF in array'))).toBeUndefined();
    });

    it('names the store for an insert refused the same way (the driver reports it as a bulk write error)', () => {
      const insert = Object.assign(
        new Error('[msg_insert.go:168 handler.(*Handler).MsgInsert] failed to connect to `user=postgres database=ferretdb`: dial error'),
        { name: 'MongoBulkWriteError', code: 1 },
      );
      expect(outageOf(insert)).toBe('STORE_UNAVAILABLE');
      expect(
        outageOf(Object.assign(new Error('E11000 duplicate key error'), { name: 'MongoBulkWriteError', code: 11000 })),
      ).toBeUndefined();
    });

    it('leaves FerretDB’s other internal errors, and PostgreSQL’s other SQLSTATEs, a 500', () => {
      expect(outageOf(ferretDbReply(handler + 'ERROR: invalid input syntax for type json (SQLSTATE 22P02)'))).toBeUndefined();
      expect(outageOf(ferretDbReply(handler + 'something unexpected'))).toBeUndefined();
      // The same words under another code are not FerretDB's connection failure.
      const other = new mongo.MongoServerError({ ok: 0, code: 2, codeName: 'BadValue', errmsg: 'failed to connect to `x`' });
      expect(outageOf(other)).toBeUndefined();
    });
  });

  it('leaves every other error alone (a 500 is a bug, not an outage)', () => {
    expect(outageOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(outageOf(Object.assign(new Error('E11000 duplicate key'), { code: 11000 }))).toBeUndefined();
    expect(outageOf('a string')).toBeUndefined();
  });
});
