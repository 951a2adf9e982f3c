/**
 * `ragwatch labels import` through the CLI into a store directory: answers with their records and bare
 * labels for held answers are stored, a label for an unknown answer is reported (exit 1) — and a
 * scoring role on the same store refits its calibration from the imported labels.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { openReviewStore } from '../../src/store/create.ts';
import { BIN, ROOT } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-labels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ragwatch labels import', () => {
  it('stores answers and labels, reports unknown answers, and a scoring role refits from them', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 60; i++) {
      const s = (i % 20) / 20 + 0.025;
      const id = `imp-${i}`;
      const triplet = { id, traceId: `${i}`.padStart(32, '4'), spanId: '0'.repeat(16), service: 'svc', timestamp: '2026-01-01T00:00:00Z', query: `q ${i}`, sources: [{ content: 'c' }], response: `r ${i}`, latency: { durationMs: 1 }, convention: 'custom' };
      const record = { tripletId: id, traceId: triplet.traceId, service: 'svc', stratum: 's', weight: 1, timestamp: triplet.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: s }, skipped: {}, details: {}, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
      lines.push(JSON.stringify({ triplet, labels: { groundedness: (i * 37) % 100 < s * 100 ? 1 : 0 }, records: [record] }));
    }
    lines.push(JSON.stringify({ tripletId: 'imp-3', metric: 'answer_relevancy', value: 1, reviewer: 'ops' }));
    lines.push(JSON.stringify({ tripletId: 'never-seen', metric: 'groundedness', value: 0 }));
    const file = join(dir, 'labels.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, 'labels', 'import', file], { cwd: ROOT, env: { ...process.env, RAGWATCH_DATA_DIR: dir } }, (_e, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }));
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('61 labels stored (60 answers with their scores), 1 skipped');
    expect(r.stderr).toContain('never-seen: no such answer in the store');
    expect(r.stderr).not.toMatch(/ExperimentalWarning/);

    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, store: { dataDir: dir } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const review = (await openReviewStore(config, instruments.registry, silentLogger))!;
    expect(review.labels('imp-3').map((l) => [l.metric, l.value, l.reviewer])).toEqual([['groundedness', expect.any(Number), 'import'], ['answer_relevancy', 1, 'ops']]);
    const quality = new QualityMonitor({ config, instruments, review });
    const models = await quality.refitter!.refit();
    expect(models?.map((m) => `${m.metric}/${m.judge}/${m.n}`)).toEqual(['grounding_lexical/embedded/60']);
    await quality.shutdown();
  }, 60_000);
});
