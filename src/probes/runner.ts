/**
 * Runs a suite's probe queries against the service within its limits (`concurrency` requests at
 * once, `perMinute` request starts per minute) and grades each answer: `correct`, `wrong`,
 * `abstained` (the answer says it does not know) or `error` (timeout, HTTP ≠ 2xx, no answer at
 * `answerPath`: the service's fault, never counted as wrong). The report follows GRAMMAR: groups are
 * gap / robust / non-robust, robustness R = correct / (answered − instances in gap groups), and a
 * failure is attributed to retrieval or generation by looking at what was retrieved.
 * @module
 */
import type { JudgeAuditRow } from './types.ts';
import type { JudgeMatch } from './judge-match.ts';
import { isAbstention, matchAnswer } from './match.ts';
import type { ProbeSuite } from './suite.ts';
import { paced } from './pace.ts';
import { askTarget, type ProbeSource, type TargetReply } from './target.ts';
import type { ProbeQuery } from './types.ts';

/** Grade of one answer. */
export type ProbeOutcomeKind = 'correct' | 'wrong' | 'abstained' | 'error';
/** Which module a wrong or abstained answer is attributed to. */
export type FailedModule = 'retrieval' | 'generator' | 'unknown';

/** One asked query and what came of it. */
export interface ProbeOutcome {
  query: ProbeQuery;
  outcome: ProbeOutcomeKind;
  /** Why an `error` (timeout, http_status, no_answer, …). */
  reason?: string;
  traceId: string;
  /** The answer text (kept in memory for the judge audit; never printed). */
  answer?: string;
  sources?: ProbeSource[];
  module?: FailedModule;
}

/** The report of one run (`ragwatch probe run --json`). */
export interface ProbeReport {
  suite: string;
  queries: number;
  outcomes: Record<ProbeOutcomeKind, number>;
  /** correct / answered (errors excluded); null when nothing was answered. */
  accuracy: number | null;
  /** correct / (answered − instances of gap groups); null when undefined. */
  robustness: number | null;
  groups: { gap: number; robust: number; non_robust: number };
  templates: Array<{ name: string; groups: { gap: number; robust: number; non_robust: number }; correct: number; total: number }>;
  failures: Record<FailedModule, number>;
  errors: Record<string, number>;
  /** The judge audit: how well each metric's "below threshold" flags the wrong answers (empty when not scored). */
  judges: JudgeAuditRow[];
  /**
   * `demographic` perturbation (HCAT §4 bias): accuracy of the first wording of the groups that have
   * demographic variants, of each variant, the gap (variant − baseline), and the consistency: the share
   * of (group, variant) pairs whose outcome equals the first wording's. Absent without such variants.
   */
  demographic?: { baseline: { answered: number; accuracy: number | null }; variants: Array<{ variant: string; answered: number; accuracy: number | null; gap: number | null }>; consistency: number | null };
}

/** The demographic section of a report (see {@link ProbeReport.demographic}). */
function demographicOf(outcomes: readonly ProbeOutcome[]): ProbeReport['demographic'] {
  const variants = outcomes.filter((o) => o.query.variant.startsWith('demographic:'));
  if (variants.length === 0) return undefined;
  const groups = new Set(variants.map((o) => o.query.group));
  const baseline = new Map(outcomes.filter((o) => o.query.variant === 'text:0' && groups.has(o.query.group)).map((o) => [o.query.group, o]));
  const acc = (list: readonly ProbeOutcome[]) => {
    const answered = list.filter((o) => o.outcome !== 'error');
    return { answered: answered.length, accuracy: answered.length === 0 ? null : answered.filter((o) => o.outcome === 'correct').length / answered.length };
  };
  const base = acc([...baseline.values()]);
  const names = [...new Set(variants.map((o) => o.query.variant))].sort();
  let same = 0;
  let pairs = 0;
  for (const v of variants) {
    const b = baseline.get(v.query.group);
    if (!b || b.outcome === 'error' || v.outcome === 'error') continue;
    pairs++;
    if ((b.outcome === 'correct') === (v.outcome === 'correct')) same++;
  }
  return {
    baseline: base,
    variants: names.map((variant) => {
      const a = acc(variants.filter((o) => o.query.variant === variant));
      return { variant: variant.slice('demographic:'.length), ...a, gap: a.accuracy === null || base.accuracy === null ? null : a.accuracy - base.accuracy };
    }),
    consistency: pairs === 0 ? null : same / pairs,
  };
}

/** Ask function (the HTTP target by default; tests and the scheduled prober may pass their own). */
export type Ask = (query: ProbeQuery) => Promise<TargetReply>;

function contains(sources: readonly ProbeSource[], truth: ReadonlyArray<string | number>): boolean {
  return sources.some((s) => truth.some((t) => matchAnswer(s.content, [t], 'contains') === true));
}

/** Grades a reply; `judgeMatch` grades the `match: judge` templates (without it they are errors). */
export async function grade(query: ProbeQuery, reply: TargetReply, abstain: readonly RegExp[], judgeMatch?: JudgeMatch): Promise<ProbeOutcome> {
  if (!reply.ok) return { query, outcome: 'error', reason: reply.reason, traceId: reply.traceId };
  const base = { query, traceId: reply.traceId, answer: reply.answer, ...(reply.sources ? { sources: reply.sources } : {}) };
  // An abstention is not sent to the judge: it states no answer.
  if (query.match === 'judge' && isAbstention(reply.answer, abstain)) return { ...base, outcome: 'abstained' };
  const matched = query.match === 'judge' ? await judgeMatch?.(query, reply.answer) : matchAnswer(reply.answer, query.truth, query.match, query.tolerance);
  if (matched === undefined) return { ...base, outcome: 'error', reason: judgeMatch ? 'judge_match_failed' : 'judge_match_unavailable' };
  if (matched) return { ...base, outcome: 'correct' };
  return { ...base, outcome: isAbstention(reply.answer, abstain) ? 'abstained' : 'wrong' };
}

/** Options of {@link runProbes}; all optional. */
export interface RunProbesOptions {
  /** Asks one query (default: the suite's HTTP target). */
  ask?: Ask;
  /** Once aborted no further query is asked and the result holds only the queries asked. */
  signal?: AbortSignal;
  /** Grades `match: judge` templates. */
  judgeMatch?: JudgeMatch;
}

/** Runs every query within the suite's limits. Never throws for the service's failures. */
export async function runProbes(suite: ProbeSuite, queries: readonly ProbeQuery[], options: RunProbesOptions = {}): Promise<ProbeOutcome[]> {
  const { ask = (q: ProbeQuery) => askTarget(suite.target, suite.suite, q.query), signal, judgeMatch } = options;
  const abstain = suite.abstainPatterns.map((p) => new RegExp(p, 'iu'));
  const out = await paced(queries, { concurrency: suite.limits.concurrency, perMinute: suite.limits.perMinute, ...(signal ? { signal } : {}) }, async (q) => grade(q, await ask(q), abstain, judgeMatch));
  return attribute(out.filter((o): o is ProbeOutcome => o !== undefined));
}

/** Outcomes by group id. */
function groupsOf(outcomes: readonly ProbeOutcome[]): Map<string, ProbeOutcome[]> {
  const out = new Map<string, ProbeOutcome[]>();
  for (const o of outcomes) {
    const members = out.get(o.query.group);
    if (members) members.push(o);
    else out.set(o.query.group, [o]);
  }
  return out;
}

/** Fills `module` of every wrong or abstained outcome (GRAMMAR's context comparison, with sibling sources). */
export function attribute(outcomes: ProbeOutcome[]): ProbeOutcome[] {
  const byGroup = groupsOf(outcomes);
  for (const o of outcomes) {
    if (o.outcome !== 'wrong' && o.outcome !== 'abstained') continue;
    if (!o.sources) {
      o.module = 'unknown';
      continue;
    }
    const siblingIds = new Set(byGroup.get(o.query.group)!.filter((s) => s.outcome === 'correct').flatMap((s) => (s.sources ?? []).flatMap((x) => (x.id ? [x.id] : []))));
    o.module = contains(o.sources, o.query.truth) || o.sources.some((s) => s.id !== undefined && siblingIds.has(s.id)) ? 'generator' : 'retrieval';
  }
  return outcomes;
}

type GroupKind = 'gap' | 'robust' | 'non_robust';

function groupKind(members: readonly ProbeOutcome[]): GroupKind | undefined {
  const answered = members.filter((m) => m.outcome !== 'error');
  if (answered.length === 0) return undefined;
  const correct = answered.filter((m) => m.outcome === 'correct').length;
  return correct === 0 ? 'gap' : correct === answered.length ? 'robust' : 'non_robust';
}

/** The run's report. */
export function summarize(suite: string, outcomes: readonly ProbeOutcome[], judges: JudgeAuditRow[] = []): ProbeReport {
  const count = <K extends string>(keys: readonly K[], of: (o: ProbeOutcome) => K | undefined, items = outcomes) => {
    const r = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
    for (const o of items) {
      const k = of(o);
      if (k !== undefined) r[k] = (r[k] ?? 0) + 1;
    }
    return r;
  };
  const kinds = new Map([...groupsOf(outcomes)].map(([g, members]) => [g, groupKind(members)]));
  const groups = { gap: 0, robust: 0, non_robust: 0 };
  for (const k of kinds.values()) if (k) groups[k]++;
  const answered = outcomes.filter((o) => o.outcome !== 'error');
  const correct = answered.filter((o) => o.outcome === 'correct').length;
  const inGaps = answered.filter((o) => kinds.get(o.query.group) === 'gap').length;
  const templates = [...new Set(outcomes.map((o) => o.query.template))].map((name) => {
    const mine = outcomes.filter((o) => o.query.template === name);
    const g = { gap: 0, robust: 0, non_robust: 0 };
    for (const group of new Set(mine.map((o) => o.query.group))) {
      const k = kinds.get(group);
      if (k) g[k]++;
    }
    return { name, groups: g, correct: mine.filter((o) => o.outcome === 'correct').length, total: mine.length };
  });
  const demographic = demographicOf(outcomes);
  return {
    suite,
    queries: outcomes.length,
    outcomes: count(['correct', 'wrong', 'abstained', 'error'] as const, (o) => o.outcome),
    accuracy: answered.length === 0 ? null : correct / answered.length,
    robustness: answered.length - inGaps === 0 ? null : correct / (answered.length - inGaps),
    groups,
    templates,
    failures: count(['retrieval', 'generator', 'unknown'] as const, (o) => o.module),
    errors: count([] as string[], (o) => (o.outcome === 'error' ? o.reason : undefined)),
    judges,
    ...(demographic ? { demographic } : {}),
  };
}
