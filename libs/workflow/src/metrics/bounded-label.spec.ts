import { describe, expect, it } from '@jest/globals';
import { BoundedLabel, BoundedLabelsPer, OTHER_LABEL_VALUE } from './bounded-label.js';

describe('BoundedLabel', () => {
  it('passes the first values, then folds new ones into _other while known ones still pass', () => {
    const label = new BoundedLabel(2);
    expect(['a', 'b', 'c', 'a', 'd', 'b'].map((value) => label.of(value))).toEqual([
      'a',
      'b',
      OTHER_LABEL_VALUE,
      'a',
      OTHER_LABEL_VALUE,
      'b',
    ]);
  });

  it('bounds values per owner and owners as a whole', () => {
    const labels = new BoundedLabelsPer(1, 1);
    expect(labels.of('t1', 'echo')).toEqual(['t1', 'echo']);
    expect(labels.of('t1', 'add')).toEqual(['t1', OTHER_LABEL_VALUE]);
    expect(labels.of('t2', 'echo')).toEqual([OTHER_LABEL_VALUE, OTHER_LABEL_VALUE]);
  });
});
