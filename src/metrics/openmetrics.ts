/**
 * OpenMetrics 1.0 exposition of a prom-client registry, with exemplars (`trace_id` on score
 * buckets). prom-client can only switch a whole registry to OpenMetrics, and doing so renames its
 * counters in place, so this renders from `metric.get()` without touching the registry.
 * @module
 */
import type { Registry } from 'prom-client';

/** Content type of the OpenMetrics exposition. */
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

interface Value {
  metricName?: string;
  labels?: Record<string, string | number>;
  value: number;
  exemplar?: { labelSet: Record<string, string>; value: number; timestamp: number } | null;
}

function num(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v < 0 ? '-Inf' : '+Inf';
  return String(v);
}

function escapeValue(v: string | number): string {
  return String(v).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelsOf(labels: Record<string, string | number> | undefined): string {
  const parts = Object.entries(labels ?? {}).map(([k, v]) => `${k}="${escapeValue(v)}"`);
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

/** True when the request's Accept header asks for OpenMetrics. */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  return /application\/openmetrics-text/i.test(accept ?? '');
}

/** Renders every metric of `registry` as OpenMetrics text, ending in `# EOF`. */
export async function openMetrics(registry: Registry): Promise<string> {
  const families = await Promise.all((registry.getMetricsAsArray() as unknown as Array<{ get(): unknown }>).map(async (m) => (await m.get()) as { name: string; help: string; type: string; values: Value[] }));
  const out: string[] = [];
  for (const f of families) {
    const counter = f.type === 'counter';
    const family = counter ? f.name.replace(/_total$/, '') : f.name;
    const type = f.type === 'gauge' || f.type === 'counter' || f.type === 'histogram' || f.type === 'summary' ? f.type : 'unknown';
    out.push(`# HELP ${family} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${family} ${type}`);
    for (const v of f.values) {
      const name = counter ? `${family}_total` : (v.metricName ?? f.name);
      let line = `${name}${labelsOf(v.labels)} ${num(v.value)}`;
      if (v.exemplar) line += ` # ${labelsOf(v.exemplar.labelSet) || '{}'} ${num(v.exemplar.value)} ${v.exemplar.timestamp.toFixed(3)}`;
      out.push(line);
    }
  }
  out.push('# EOF');
  return `${out.join('\n')}\n`;
}
