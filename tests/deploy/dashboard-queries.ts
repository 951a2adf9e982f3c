/**
 * Test helpers for the dashboards: collect every PromQL expression with where it comes from,
 * substitute Grafana's macros and variables, and check syntax with Prometheus' own Lezer grammar.
 */
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { parser } from '@prometheus-io/lezer-promql';

/** One PromQL expression of a dashboard panel. */
export interface PanelQuery {
  dashboard: string;
  panel: string;
  expr: string;
}

interface PanelLike {
  title?: string;
  type?: string;
  targets?: Array<{ expr?: string }>;
  panels?: PanelLike[];
}

/** Every `targets[].expr` of every panel (rows included). */
export function panelQueries(dashboard: Dashboard): PanelQuery[] {
  const out: PanelQuery[] = [];
  const visit = (panels: readonly PanelLike[] | undefined) => {
    for (const p of panels ?? []) {
      for (const t of p.targets ?? []) if (t.expr) out.push({ dashboard: dashboard.title ?? '?', panel: p.title ?? '?', expr: t.expr });
      visit(p.panels);
    }
  };
  visit(dashboard.panels as PanelLike[] | undefined);
  return out;
}

/** Values the test substitutes for Grafana's macros and the dashboards' variables. */
export interface Substitutions {
  rateInterval: string;
  window: string;
  metric: string;
  /** The `$evaluator` variable: one evaluator, or an alternation as Grafana's "All" gives it. */
  evaluator: string;
}

/**
 * Replaces `$__rate_interval`/`$__interval`/`$__range` and `$var`/`${var}` with concrete values:
 * All (`.*`) for service/route/judge, one judge metric for `$metric`.
 */
export function substitute(expr: string, s: Substitutions): string {
  const vars: Record<string, string> = {
    __rate_interval: s.rateInterval,
    __interval: s.rateInterval,
    __range: s.window,
    window: s.window,
    metric: s.metric,
    evaluator: s.evaluator,
    service: '.*',
    route: '.*',
    judge: '.*',
  };
  return expr.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new Error(`unknown dashboard variable ${whole} in: ${expr}`);
    return v;
  });
}

/** The first Lezer error node's position, or undefined when the expression parses. */
export function promqlSyntaxError(expr: string): number | undefined {
  let at: number | undefined;
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError && at === undefined) at = node.from;
    },
  });
  return at;
}
