import { describe, expect, it } from 'vitest';
import { UnsentOutcomes, type OutcomeRecords } from '../../src/transport/unsent-outcomes.ts';

const out = (id: string): OutcomeRecords => [{ topic: 'scores', message: { key: id, value: `score of ${id}` } }];

describe('UnsentOutcomes', () => {
  it('gives a kept outcome back once, to the first redelivery', () => {
    const kept = new UnsentOutcomes();
    kept.keep('a', out('a'), 0);
    expect(kept.take('a', 1)).toEqual(out('a'));
    expect(kept.take('a', 2)).toBeUndefined();
    expect(kept.take('never', 2)).toBeUndefined();
  });

  it('forgets the oldest past the bound and whatever outlived the window, counting each', () => {
    let evicted = 0;
    const kept = new UnsentOutcomes({ maxEntries: 2, windowMs: 1_000, onEvict: () => evicted++ });
    kept.keep('a', out('a'), 0);
    kept.keep('b', out('b'), 10);
    kept.keep('c', out('c'), 20);
    expect(kept.size).toBe(2);
    expect(evicted).toBe(1);
    expect(kept.take('a', 30)).toBeUndefined();
    expect(kept.take('b', 1_011)).toBeUndefined();
    expect(evicted).toBe(2);
    expect(kept.take('c', 1_019)).toEqual(out('c'));
  });

  it('keeps nothing with a zero window', () => {
    const kept = new UnsentOutcomes({ windowMs: 0 });
    kept.keep('a', out('a'), 0);
    expect(kept.size).toBe(0);
  });
});
