/**
 * `ragwatch calibrate` through the CLI on a labels file whose answers carry score records drawn from
 * a known link (P(good | s) = s², a judge that overstates quality): the report's figures, the saved
 * calibration (loadable by `calibration.file`), and bad lines named by line and key.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMap } from '../../src/calibration/fit.ts';
import { loadCalibrationFile } from '../../src/calibration/load-file.ts';
import { BIN, ROOT } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-calibrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, 'calibrate', ...args], { cwd: ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1' } }, (_err, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }));
  });
}

/** Deterministic uniform [0,1). */
function rng(seed: number): () => number {
  let a = seed;
  return () => ((a = (a * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

function labelsFile(n: number): string {
  const r = rng(7);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = r();
    const good = r() < s * s ? 1 : 0;
    const id = `t${i}`;
    const triplet = { id, traceId: `${i}`.padStart(32, '0'), spanId: '0'.repeat(16), service: 'svc', timestamp: '2026-01-01T00:00:00Z', query: 'q', sources: [{ content: 'c' }], response: 'r', latency: { durationMs: 1 }, convention: 'custom' };
    const record = { tripletId: id, traceId: triplet.traceId, service: 'svc', stratum: 's', weight: 1, timestamp: triplet.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: s }, skipped: {}, details: {}, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
    lines.push(JSON.stringify({ triplet, labels: { groundedness: good === 1 }, records: [record] }));
  }
  const file = join(dir, `labels-${n}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('ragwatch calibrate', () => {
  it('reports agreement raw vs calibrated and saves a calibration that calibration.file loads', async () => {
    const out = join(dir, 'cal.json');
    const r = await run(['--json', '--alpha', '0.1', '--out', out, labelsFile(3000)]);
    expect(r.status, r.stderr).toBe(0);
    const { calibrations } = JSON.parse(r.stdout) as { calibrations: Array<Record<string, unknown> & { setSizes: Record<string, number> }> };
    expect(calibrations).toHaveLength(1);
    const c = calibrations[0]!;
    expect(c).toMatchObject({ metric: 'grounding_lexical', judge: 'embedded', labelMetric: 'groundedness', n: 3000, alpha: 0.1 });
    expect(c.brierCalibrated as number).toBeLessThan(c.brierRaw as number);
    expect(c.eceCalibrated as number).toBeLessThan(0.06);
    expect(c.coverage as number).toBeGreaterThan(0.85);
    expect(['platt', 'isotonic']).toContain(c.method);
    for (const k of ['auc', 'spearman', 'kappa', 'needsReviewRatio']) expect(typeof c[k]).toBe('number');
    const [model] = loadCalibrationFile(out);
    expect(Math.abs(applyMap(model!.map, 0.7) - 0.49)).toBeLessThan(0.08);
  });

  it('says why a metric is not calibrated, and names the bad line and key', async () => {
    const few = await run([labelsFile(12)]);
    expect(few.status).toBe(0);
    expect(few.stdout).toContain('not calibrated: 12 labels < 30 (calibration.minLabels)');
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"triplet": {"id": "x"}, "labels": {"groundedness": 1}}\n');
    const r = await run([bad]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl:1: key "triplet\.\w+"/);
  });
});
