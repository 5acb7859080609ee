import { describe, expect, it } from '@jest/globals';
import { cascadeReason } from './cascade-reason.js';

describe('cascadeReason', () => {
  it('names the parent and how it ended when it failed or was canceled', () => {
    expect(cascadeReason({ id: 'p1', status: 'failed' })).toBe('its parent run p1 failed');
    expect(cascadeReason({ id: 'p1', status: 'canceled' })).toBe('its parent run p1 was canceled');
  });

  it('leaves the children of a run that succeeded or has not ended', () => {
    for (const status of ['succeeded', 'queued', 'running', 'waiting'] as const)
      expect(cascadeReason({ id: 'p1', status })).toBeUndefined();
  });
});
