/**
 * The change monitor in a scoring process: "no baseline yet" in `/api/status` and as a series, a page
 * notified (firing, then resolved) to a webhook, and a restart that keeps the baseline in the
 * embedded store.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { ChangeMonitor } from '../../src/change/monitor.ts';
import { changeAlertName } from '../../src/change/rules.ts';
import { loadConfig } from '../../src/config/load.ts';
import { configSummary } from '../../src/config/summary.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { AlertNotifier } from '../../src/metrics/notifier.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { openReviewStore } from '../../src/store/create.ts';
import { silentLogger } from '../../src/log.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { SIM_START_MS, defaultChange, record, simulate } from './simulate.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('ChangeMonitor', () => {
  it('says "no baseline yet" in /api/status and ragwatch_change_baseline_ready until the baseline holds enough answers', async () => {
    let now = Date.UTC(2026, 0, 1);
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, alerts: { evaluate: false } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const quality = new QualityMonitor({ config, instruments, now: () => now });
    const app = createApiApp({ registry: instruments.registry, ready: () => true, quality, summary: () => configSummary(config) });
    const feed = (minutes: number) => {
      for (let m = 0; m < minutes; m++) {
        for (let i = 0; i < 12; i++) quality.onRecord(record(i === 0 ? 0.5 : 1));
        now += 60_000;
      }
    };
    feed(30);
    quality.change.evaluate();
    const status = (await (await app.request('/api/status')).json()) as { change: Array<{ metric: string; state: string; baselineSamples: number }> };
    expect(status.change).toEqual([expect.objectContaining({ tier: 'page', metric: 'groundedness', state: 'no_baseline' }), expect.objectContaining({ tier: 'ticket', metric: 'groundedness', state: 'no_baseline' })]);
    expect(await instruments.registry.metrics()).toContain('ragwatch_change_baseline_ready{metric="groundedness",judge="llm",service="rag"} 0');
    feed(150);
    quality.change.evaluate();
    const later = (await (await app.request('/api/status')).json()) as typeof status;
    // The ticket tier's baseline ends where its 6 h window starts: three hours are not enough for it yet.
    expect(later.change.map((c) => c.state)).toEqual(['ok', 'no_baseline']);
    expect(later.change[0]!.baselineSamples).toBeGreaterThanOrEqual(1000);
    expect(await instruments.registry.metrics()).toContain('ragwatch_change_baseline_ready{metric="groundedness",judge="llm",service="rag"} 1');
    // The examples of an alert's window: since= filters by the answer's time, and a bad value is a 400 naming it.
    expect((await app.request('/api/examples?since=soon')).status).toBe(400);
    expect(await (await app.request('/api/examples?since=soon')).json()).toEqual({ error: 'since must be a time: milliseconds since the epoch or RFC 3339 (2026-01-31T12:00:00Z)' });
    expect((await (await app.request(`/api/examples?since=${Date.UTC(2030, 0, 1)}`)).json()) as { count: number }).toMatchObject({ count: 0 });
    await quality.shutdown();
  });

  it('notifies a page when it fires and when it resolves, saying what moved', async () => {
    const received: Array<{ status: string; alerts: Array<{ status: string; labels: Record<string, string>; annotations: Record<string, string>; startsAt: string }> }> = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body) as (typeof received)[number]);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const notifier = new AlertNotifier({ webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` });
    const { firings, monitor } = simulate(11, 4 * 60, 0.2, (m) => (m >= 180 && m < 200 ? 0.3 : 0.05), {
      monitor: (now) => new ChangeMonitor({ ...defaultChange(), registry: new Registry(), notifier, now, examplesUrl: 'http://ragwatch.example', movedCell: (metric, _judge, cut, baseline) => (metric === 'groundedness' && cut === 0.8 && baseline > 0 && baseline < 0.1 ? 'release=v2.3: 41 % flagged (n=38) vs 5.0 % baseline' : undefined) }),
    });
    await monitor.shutdown();
    server.close();
    expect(firings.length).toBe(1);
    expect(received.map((r) => r.alerts[0]!.status)).toEqual(['firing', 'resolved']);
    const alert = received[0]!.alerts[0]!;
    expect(alert.labels).toMatchObject({ alertname: 'RagwatchGroundednessDrop', metric: 'groundedness', judge: 'llm', service: 'rag', severity: 'page', kind: 'change' });
    expect(alert.annotations.description).toMatch(/rose from \d+\.\d % \(baseline, n=\d+\) to \d+\.\d % \(n=\d+, z=\d+\.\d\)/);
    // What moved and since when: the weakness map's cell, the first minute the drop shows, the examples of that window.
    expect(alert.annotations.moved).toBe('groundedness release=v2.3: 41 % flagged (n=38) vs 5.0 % baseline');
    const visible = Date.parse(alert.annotations.visible_since!);
    const shift = SIM_START_MS + 180 * 60_000;
    expect(visible).toBeGreaterThanOrEqual(shift - 5 * 60_000);
    expect(visible).toBeLessThan(Date.parse(alert.startsAt));
    expect(alert.annotations.examples).toBe(`http://ragwatch.example/examples?metric=groundedness&below=0.8&service=rag&since=${visible}`);
  });

  it('keeps its baseline across a restart (embedded store), so a drop right after it is still paged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ragwatch-change-store-'));
    dirs.push(dir);
    const config = loadConfig({ env: {}, overrides: { store: { dataDir: dir } } });
    const first = await openReviewStore(config, new Registry(), silentLogger);
    const before = simulate(4, 3 * 60, 0.2, () => 0.05, { monitor: (now) => new ChangeMonitor({ ...defaultChange(), now, store: first! }) });
    await before.monitor.shutdown();
    await first!.shutdown();

    // Restarted a minute later: the baseline is there at once, and a drop is paged within minutes.
    const second = await openReviewStore(config, new Registry(), silentLogger);
    const after = simulate(5, 30, 0.2, () => 0.3, { startMs: before.endMs + 60_000, monitor: (now) => new ChangeMonitor({ ...defaultChange(), now, store: second! }) });
    expect(after.baselineReadyAt).toBe(0);
    expect(after.monitor.status().map((x) => x.tier).sort()).toEqual(['page', 'ticket']);
    expect(after.firings.length).toBe(1);
    expect(after.firings[0]!).toBeLessThan(20);
    await after.monitor.shutdown();
    await second!.shutdown();
    // Without the saved baseline, the same 30 minutes page nothing (no baseline yet).
    expect(simulate(5, 30, 0.2, () => 0.3, { startMs: before.endMs + 60_000 }).firings).toEqual([]);
  });
});

describe('change rules', () => {
  const config = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page' }, answer_relevancy: { threshold: 0.2, severity: 'ticket' } } } } });
  it('are generated for page-severity metrics only, unless a metric says otherwise', () => {
    const names = (c: typeof config) => generateRules(c).groups.flatMap((g) => g.rules.map((r) => r.alert)).filter((a) => String(a).endsWith('Drop') && !String(a).endsWith('SliceDrop'));
    expect(names(config)).toEqual([changeAlertName('groundedness')]);
    const on = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page', change: false }, answer_relevancy: { threshold: 0.2, severity: 'ticket', change: true } } } } });
    expect(names(on)).toEqual(['RagwatchAnswerRelevancyDrop']);
  });

});
