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

  it('leaves every other error alone (a 500 is a bug, not an outage)', () => {
    expect(outageOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(outageOf(Object.assign(new Error('E11000 duplicate key'), { code: 11000 }))).toBeUndefined();
    expect(outageOf('a string')).toBeUndefined();
  });
});
