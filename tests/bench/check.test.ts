/**
 * The bench check CI runs (`npm run bench -- --quick`): a gated figure (stable in quick mode) that
 * misses its target fails the run with the figure named; an ungated one (a noisy throughput ratio)
 * is reported only; in full mode every miss fails. Run as CI runs it, on saved figure lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TARGETS } from '../../bench/targets.ts';
import { ROOT } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-bench-check-'));
const line = (figure: string, value: number, ratio: number | null = null) => JSON.stringify({ bench: 'x', figure, value, unit: 'u', baseline: null, ratio });
const GOOD = [line('rss_growth_mb_overload', 34), line('rss_growth_mb_overload_grpc', 44), line('overload_healthz_failures', 0), line('judge_calls_per_triplet_cold', 3), line('judge_calls_per_triplet_warm', 3), line('judge_calls_per_triplet_with_history', 3), line('judge_tokens_per_triplet', 3235), line('judge_calls_per_triplet_three_evaluators', 4), line('judge_calls_per_triplet_three_evaluators_max', 4), line('judge_tokens_added_by_three_evaluators', 866), line('processor_onend_p99_us', 0.3), line('slices_evaluate_ms', 7.6), line('slice_entry_bytes', 4933), line('plugin_host_rss_mb_forward', 20.4), line('plugin_host_rss_mb_forward_main', 20.4), line('history_store_bytes_7d', 1_405_000), line('split_pipeline_consumer_lag_left', 0), line('trail_ring_mb_default', 8.5), line('answer_page_ms_p99', 12.6), line('peers_ingest_cpu_s_per_10k_spans_ragwatch', 1.1, 0.02)];

function check(lines: string[], ...args: string[]) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\nnot a figure line\n`);
  return spawnSync(process.execPath, ['bench/run.ts', ...args, '--figures', file], { cwd: ROOT, encoding: 'utf8' });
}

describe('bench check', () => {
  it('gates exactly the figures stable in quick mode', () => {
    expect(Object.entries(TARGETS).filter(([, t]) => t.gate).map(([f]) => f).sort()).toEqual(['answer_page_ms_p99', 'history_store_bytes_7d', 'judge_calls_per_triplet_cold', 'judge_calls_per_triplet_three_evaluators', 'judge_calls_per_triplet_three_evaluators_max', 'judge_calls_per_triplet_warm', 'judge_calls_per_triplet_with_history', 'judge_tokens_added_by_three_evaluators', 'judge_tokens_per_triplet', 'local_judge_event_loop_p99_ms', 'local_judge_node_modules_mb', 'local_judge_rss_mb', 'overload_healthz_failures', 'peers_ingest_cpu_s_per_10k_spans_ragwatch', 'plugin_host_rss_mb_forward', 'plugin_host_rss_mb_forward_main', 'processor_onend_p99_us', 'rss_growth_mb_overload', 'rss_growth_mb_overload_grpc', 'slice_entry_bytes', 'slices_evaluate_ms', 'split_pipeline_consumer_lag_left', 'trail_ring_mb_default']);
  });

  it('quick mode passes when the gated figures meet their targets, even with a noisy ratio missing', () => {
    const run = check([...GOOD, line('scorer_throughput_ratio_vs_limit', 1, 0.5)], '--quick');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/- report scorer_throughput_ratio_vs_limit: .* misses target ratio >= 0\.9/);
  });

  for (const [figure, bad] of [['rss_growth_mb_overload', 75.5], ['overload_healthz_failures', 2], ['judge_calls_per_triplet_warm', 4], ['judge_tokens_per_triplet', 4100], ['judge_calls_per_triplet_three_evaluators', 5], ['judge_tokens_added_by_three_evaluators', 1200], ['processor_onend_p99_us', 35], ['slices_evaluate_ms', 61], ['slice_entry_bytes', 9000], ['rss_growth_mb_overload_grpc', 65], ['plugin_host_rss_mb_forward', 31], ['split_pipeline_consumer_lag_left', 3], ['trail_ring_mb_default', 13], ['answer_page_ms_p99', 140]] as const) {
    it(`quick mode fails when ${figure} misses (${bad})`, () => {
      const run = check([...GOOD.filter((l) => !l.includes(`"${figure}"`)), line(figure, bad)], '--quick');
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`- FAIL ${figure}: {"value":${bad}`);
    });
  }

  it("quick mode fails when ragwatch's CPU per span rises above a fifth of Phoenix's", () => {
    const run = check([...GOOD.filter((l) => !l.includes('"peers_ingest_cpu_s_per_10k_spans_ragwatch"')), line('peers_ingest_cpu_s_per_10k_spans_ragwatch', 15, 0.26)], '--quick');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('- FAIL peers_ingest_cpu_s_per_10k_spans_ragwatch: {"value":15,"ratio":0.26}');
  });

  it('full mode fails on any miss, the noisy ratios too', () => {
    const run = check([...GOOD, line('scorer_throughput_ratio_vs_limit', 1, 0.5)]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/- FAIL scorer_throughput_ratio_vs_limit/);
  });
});
