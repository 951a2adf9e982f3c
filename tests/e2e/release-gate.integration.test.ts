/**
 * Issue 37 end to end, through `ragwatch start` (in process, real ports): two releases of the demo
 * RAG service traced at once with the real OTel SDK (`service.version` 1.0 and 1.1), 1.1 broken (it
 * answers with facts no source states). The slice alert pages naming `release="1.1"` (the webhook
 * gets it, with a link to that release's examples), the front door shows both releases side by side
 * with 1.1 worse, `/api/releases` says so, and a real Prometheus scraping ragwatch answers the
 * Argo Rollouts AnalysisTemplate's own query with -1 — its failure condition.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startDemoRag } from '../../scripts/demo-rag/service.ts';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import type { AlertNotice } from '../../src/metrics/notifier.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import { freePort, ROOT, waitFor } from '../helpers/process.ts';
import { inChromium } from '../helpers/chromium.ts';
import { haveBinaries, promQuery, startPrometheus, type LoopbackProcess } from '../helpers/prometheus.ts';

const enabled = haveBinaries('release gate end to end', 'prometheus', 'chromium');
const QUESTIONS = ['Who heads the Sales department?', 'Which office is Ada Lovelace based in?', 'What does Billwise cost per month?', 'Who manages the Globex account?', 'When did Ada Lovelace join Acme?', 'Which floor is the Legal department on?'];

describe.skipIf(!enabled)('a broken release next to a healthy one, through ragwatch start', () => {
  let dir: string;
  let app: RunningApp;
  let prometheus: LoopbackProcess | undefined;
  let hook: Server;
  const notices: AlertNotice[] = [];
  const rags: Array<Awaited<ReturnType<typeof startDemoRag>>> = [];
  let http: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ragwatch-release-gate-'));
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        notices.push(...((JSON.parse(body) as { alerts: AlertNotice[] }).alerts ?? []));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const otlpPort = await freePort();
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort, otlpGrpcPort: 0, httpPort: 0 },
        store: { dataDir: join(dir, 'data') },
        metrics: { processMetrics: false },
        // Test-sized: a reference after 30 answers, a verdict after 8, evaluated four times a second.
        alerts: { evaluationIntervalMs: 250, examplesUrl: 'http://ragwatch.test', webhook: { url: `http://127.0.0.1:${(hook.address() as { port: number }).port}/` }, slices: { minReferenceSamples: 30 }, releases: { minSamples: 8 } },
      },
    });
    app = await startApp(config, silentLogger);
    http = `http://127.0.0.1:${app.http.port}`;
    await waitFor(() => app.pipeline.ready, 60_000);
    rags.push(await startDemoRag({ otlpUrl: `http://127.0.0.1:${otlpPort}`, release: '1.0' }), await startDemoRag({ otlpUrl: `http://127.0.0.1:${otlpPort}`, release: '1.1', hallucinate: true }));
    prometheus = await startPrometheus({ targets: [`127.0.0.1:${app.http.port}`], dir, interval: '1s' });
  }, 120_000);

  afterAll(async () => {
    await prometheus?.stop();
    for (const r of rags) await r.close();
    await app?.shutdown();
    await new Promise((r) => hook?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('pages release 1.1 by name, shows both releases with 1.1 worse, and the AnalysisTemplate query fails it', async () => {
    const ask = (url: string, q: string) => fetch(url, { method: 'POST', body: JSON.stringify({ question: q }) }).then((r) => r.json());
    // A healthy stretch of 1.0, then both at once: 1.1 takes one request in six.
    for (let i = 0; i < 60; i++) await ask(rags[0]!.url, QUESTIONS[i % QUESTIONS.length]!);
    for (let i = 0; i < 72; i++) await ask(rags[i % 6 === 0 ? 1 : 0]!.url, QUESTIONS[i % QUESTIONS.length]!);

    const page = await waitFor(() => notices.find((n) => n.status === 'firing' && n.labels.kind === 'slice' && n.labels.release === '1.1'), 60_000, 250);
    expect(page.labels).toMatchObject({ alertname: 'RagwatchGroundingLexicalSliceDrop', service: 'acme-rag-demo', dimension: 'release', slice: '1.1', severity: 'page' });
    expect(page.annotations.summary).toMatch(/^grounding_lexical dropped in release=1\.1 of acme-rag-demo: \d+ of \d+ answers flagged/);
    expect(page.annotations.examples).toMatch(/^http:\/\/ragwatch\.test\/examples\?metric=grounding_lexical&service=acme-rag-demo&release=1\.1&since=\d+$/);
    // No page names the healthy release.
    expect(notices.filter((n) => n.labels.release === '1.0')).toEqual([]);

    // The page can come before the last answers of 1.1 are judged; the gate's verdict follows them.
    type Releases = { services: Array<{ service: string; baseline: string; releases: Array<{ release: string; verdict?: string }> }> };
    const releases = async () => (await (await fetch(`${http}/api/releases`)).json()) as Releases;
    const api = await waitFor(async () => {
      const r = await releases();
      return r.services[0]?.releases.find((x) => x.release === '1.1')?.verdict === 'worse' ? r : undefined;
    }, 30_000, 250).catch(async () => releases());
    expect(api.services).toEqual([expect.objectContaining({ service: 'acme-rag-demo', baseline: '1.0' })]);
    expect(api.services[0]!.releases.find((r) => r.release === '1.1')?.verdict).toBe('worse');

    const home = await (await fetch(`${http}/`)).text();
    expect(home).toContain('<section id="releases">');
    expect(home).toMatch(/<th scope="row">1\.1<\/th><td>\d+<\/td><td>[^<]+<\/td><td class="bad">worse<\/td>/);
    expect(home).toMatch(/<th scope="row">1\.0<\/th><td>\d+<\/td><td>[^<]+<\/td><td class="meta">baseline<\/td>/);
    expect(home).toContain('release=1.1</b> of service <b>acme-rag-demo</b>');
    // As people see it (the picture in docs/deploy.md): the section's verdict cell reads "worse".
    await inChromium({ url: `${http}/`, width: 1000, height: 700, screenshot: 'front-door-releases.png' }, async (p) => {
      expect(await p.locator('#releases td.bad').first().textContent()).toBe('worse');
      await p.locator('#releases').screenshot({ path: join(ROOT, 'tests/.artifacts/releases-section.png') });
    });
    // The examples of that release are one link away.
    const examples = (await (await fetch(`${http}/api/examples?metric=grounding_lexical&release=1.1`)).json()) as { examples: Array<{ record: { release: string } }> };
    expect(examples.examples.length).toBeGreaterThan(0);
    expect(examples.examples.every((e) => e.record.release === '1.1')).toBe(true);

    // The series deploy tools read, through a real Prometheus and the AnalysisTemplate's own query.
    const template = parse(readFileSync(join(ROOT, 'helm/examples/release-gates/argo-rollouts-analysis.yaml'), 'utf8')) as { spec: { metrics: Array<{ failureCondition: string; provider: { prometheus: { query: string } } }> } };
    const metric = template.spec.metrics[0]!;
    const query = metric.provider.prometheus.query.replace('{{args.service}}', 'acme-rag-demo').replace('{{args.release}}', '1.1');
    const result = await waitFor(async () => {
      const samples = await promQuery(prometheus!.url, query);
      return samples[0] && Number(samples[0].value[1]) === -1 ? samples : undefined;
    }, 30_000, 500);
    expect(metric.failureCondition).toBe('result[0] == -1');
    expect(Number(result[0]!.value[1])).toBe(-1);
  }, 180_000);
});
