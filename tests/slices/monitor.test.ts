/**
 * The slice monitor in process: a broken canary pages naming its release, with its counts next to the
 * reference's and a link to that slice's examples; the release gate says worse; a healthy canary stays
 * silent and its verdict turns no_worse; slices are bounded (top-K, `other` counted, idle places
 * given up); a dominant release is not tested; counts survive a restart through the store.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { AlertNotifier, type AlertNotice } from '../../src/metrics/notifier.ts';
import { SliceMonitor } from '../../src/slices/monitor.ts';
import { sliceSettingsFromConfig } from '../../src/slices/settings.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { metricValue } from '../helpers/process.ts';
import { START_MS, sliceConfig } from './simulate.ts';

function record(release: string, route: string, flagged: boolean, extra: Partial<ScoreRecord> = {}): ScoreRecord {
  return { tripletId: 't', traceId: 'a'.repeat(32), service: 'rag', release, route, stratum: 's', weight: 1, timestamp: '', judge: { kind: 'embedded' }, scores: { grounding_lexical: flagged ? 0.5 : 1 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 }, ...extra };
}

/** One answer in 33 flagged (3 %), cycling over answer positions so every route and release gets its share. */
const every33 = (minute: number, i: number) => (minute * 12 + i) % 33 === 0;

/** A monitor on a clock; `feed(minutes, perMinute, make)` adds answers minute by minute and evaluates after each minute. */
function harness(alerts: Record<string, unknown> = {}, withNotifier = false) {
  let now = START_MS;
  const registry = new Registry();
  const sent: AlertNotice[][] = [];
  const notifier = new AlertNotifier({ webhookUrl: 'http://127.0.0.1:9/hook' });
  if (withNotifier) (notifier as unknown as { send: (a: AlertNotice[], c: AlertNotice[]) => void }).send = (_all, changed) => void (changed.length > 0 && sent.push(changed));
  const monitor = new SliceMonitor({ ...sliceSettingsFromConfig(sliceConfig(alerts).alerts), registry, now: () => now, examplesUrl: 'https://ragwatch.example', ...(withNotifier ? { notifier } : {}) });
  const feed = (minutes: number, perMinute: number, make: (minute: number, i: number) => ScoreRecord) => {
    const firings: number[] = [];
    for (let m = 0; m < minutes; m++) {
      for (let i = 0; i < perMinute; i++) {
        now += Math.floor(60_000 / perMinute);
        monitor.onRecord(make(m, i));
      }
      if (monitor.evaluate().length > 0) firings.push(m);
    }
    return firings;
  };
  return { monitor, registry, feed, sent, clock: { get now() { return now; }, set now(v: number) { now = v; } } };
}

describe('SliceMonitor', () => {
  it('pages a broken 10 % canary naming release="v2", with its counts next to the other releases\', and says worse', async () => {
    const h = harness({}, true);
    // Two hours of v1 alone (3 % flagged, spread over the routes, 12 answers a minute), then v2 takes one answer in twelve, all flagged.
    expect(h.feed(120, 12, (m, i) => record('v1', `/r${i % 4}`, every33(m, i)))).toEqual([]);
    const firings = h.feed(60, 12, (m, i) => (i === 5 ? record('v2', `/r${i % 4}`, true) : record('v1', `/r${i % 4}`, every33(m, i))));
    expect(firings.length).toBeGreaterThan(0);
    const firing = h.monitor.status().filter((s) => s.state === 'firing');
    expect(firing.map((s) => `${s.dimension}=${s.slice}`)).toContain('release=v2');
    const v2 = firing.find((s) => s.slice === 'v2')!;
    expect(v2.reference).toBe('concurrent');
    expect(v2.runFlagged).toBeGreaterThan(0);
    const notice = h.sent.flat().find((n) => n.labels.release === 'v2' && n.status === 'firing')!;
    expect(notice.labels).toMatchObject({ alertname: 'RagwatchGroundingLexicalSliceDrop', kind: 'slice', dimension: 'release', slice: 'v2', severity: 'page', service: 'rag' });
    expect(notice.annotations.summary).toMatch(/^grounding_lexical dropped in release=v2 of rag: \d+ of \d+ answers flagged \(100\.0 %\) since .* vs \d+\.\d % in the rest of the service over the same period \(n=\d+, other releases\)$/);
    expect(notice.annotations.examples).toMatch(/^https:\/\/ragwatch\.example\/examples\?metric=grounding_lexical&service=rag&release=v2&since=\d+$/);
    // The gate: v1 is the baseline (most answers), v2 is worse.
    const [svc] = h.monitor.releases();
    expect(svc).toMatchObject({ service: 'rag', baseline: 'v1' });
    expect(svc!.releases.find((r) => r.release === 'v2')).toMatchObject({ verdict: 'worse' });
    const text = await h.registry.metrics();
    expect(metricValue(text, 'ragwatch_release_verdict', { service: 'rag', release: 'v2', baseline: 'v1' })).toBe(-1);
    expect(metricValue(text, 'ragwatch_slice_alert_active', { dimension: 'release', slice: 'v2', metric: 'grounding_lexical' })).toBe(1);
  });

  it('a healthy canary pages nothing, and its verdict goes from inconclusive to no_worse', () => {
    const h = harness();
    h.feed(120, 12, (m, i) => record('v1', `/r${i % 4}`, every33(m, i)));
    const verdicts: string[] = [];
    let paged = 0;
    // Each release gets every other answer, with the same 3 % flagged: a few minutes, then hours.
    for (const minutes of [3, 60, 60, 60, 60]) {
      paged += h.feed(minutes, 12, (m, i) => record(Math.floor(i / 2) % 2 === 0 ? 'v2' : 'v1', `/r${i % 4}`, every33(m, i))).length;
      verdicts.push(h.monitor.releases()[0]!.releases.find((r) => r.release === 'v2')!.verdict!);
    }
    expect(paged).toBe(0);
    expect(verdicts[0]).toBe('inconclusive');
    expect(verdicts.at(-1)).toBe('no_worse');
  });

  it('does not test a release holding nearly all of the traffic (the service-wide alert covers it)', () => {
    const h = harness();
    h.feed(60, 12, (_m, i) => record('v1', '/a', i < 6));
    expect(h.monitor.status().filter((s) => s.dimension === 'release').map((s) => s.state)).toEqual(['untested']);
  });

  it('keeps at most maxRoutes routes; others are counted; an idle route gives its place up', async () => {
    const h = harness({ slices: { maxRoutes: 3, idle: '30m' } });
    h.feed(10, 10, (_m, i) => record('v1', `/r${i % 5}`, false));
    const routes = () => [...new Set(h.monitor.status().filter((s) => s.dimension === 'route').map((s) => s.slice))].sort();
    expect(routes()).toEqual(['/r0', '/r1', '/r2']);
    expect(metricValue(await h.registry.metrics(), 'ragwatch_slices_other_total', { dimension: 'route' })).toBe(40);
    // /r1 and /r2 fall idle for 40 minutes; /r9 then takes the place of the idlest.
    h.feed(40, 10, () => record('v1', '/r0', false));
    h.feed(1, 1, () => record('v1', '/r9', false));
    expect(routes()).toEqual(['/r0', '/r2', '/r9']);
    expect(metricValue(await h.registry.metrics(), 'ragwatch_slice_answers_total', { dimension: 'route', slice: '/r1' })).toBeUndefined();
  });

  it('saves its counts in the store and a new monitor restores them', () => {
    const models = new Map<string, unknown>();
    const store = { saveModel: (n: string, b: unknown) => void models.set(n, JSON.parse(JSON.stringify(b))), model: <T>(n: string) => models.get(n) as T | undefined };
    let now = START_MS;
    const settings = sliceSettingsFromConfig(sliceConfig().alerts);
    const a = new SliceMonitor({ ...settings, now: () => now, store });
    for (let i = 0; i < 100; i++) {
      now += 1_000;
      a.onRecord(record(i % 2 ? 'v1' : 'v2', '/a', i % 10 === 0));
    }
    a.save();
    const b = new SliceMonitor({ ...settings, now: () => now, store });
    b.evaluate();
    expect(b.status().map((s) => `${s.dimension}=${s.slice}`).sort()).toEqual(['release=v1', 'release=v2', 'route=/a']);
    expect(b.releases()[0]!.releases.map((r) => r.answers)).toEqual([50, 50]);
  });

  it('counts a new release\'s answers that arrive before its first evaluation (a burst right after a deploy)', () => {
    const h = harness();
    h.feed(60, 12, (m, i) => record('v1', `/r${i % 4}`, every33(m, i)));
    // Twelve flagged answers of v2 between two evaluations: the statistic starts from their sum.
    for (let i = 0; i < 12; i++) h.monitor.onRecord(record('v2', '/r0', true));
    expect(h.monitor.evaluate().map((s) => `${s.dimension}=${s.slice}`)).toContain('release=v2');
    expect(h.monitor.status().find((s) => s.slice === 'v2' && s.metric === 'grounding_lexical')).toMatchObject({ runSamples: 12, runFlagged: 12 });
  });

  it('leaves probe answers out', () => {
    const h = harness();
    h.monitor.onRecord(record('v1', '/a', true, { origin: 'probe' }));
    expect(h.monitor.status()).toEqual([]);
  });
});
