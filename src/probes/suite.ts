/**
 * The probe suite (GRAMMAR ground-truth canaries, DESIGN §13): what a user writes in YAML, validated
 * with zod. Query logics are SQL templates over a fact database; each has several wordings. See
 * docs/probes.md for every key.
 * @module
 */
import { z } from 'zod';
import { displayName } from '../config/display-name.ts';

const labelName = displayName;

/** How an answer is compared with the ground truth. */
export const MATCH_KINDS = ['exact', 'contains', 'number', 'set', 'judge'] as const;
export type MatchKind = (typeof MATCH_KINDS)[number];

/** Deterministic input variations added to every group (HCAT robustness; `demographic`: HCAT §4 bias). */
export const PERTURBATIONS = ['typo', 'lowercase', 'demographic'] as const;

/** Default `demographics`: one variant swapping gendered pronouns and terms both ways. */
export const DEFAULT_DEMOGRAPHICS = {
  swapped_gender: { he: 'she', she: 'he', him: 'her', his: 'her', her: 'his', hers: 'his', himself: 'herself', herself: 'himself', man: 'woman', woman: 'man', men: 'women', women: 'men', mr: 'ms', ms: 'mr', father: 'mother', mother: 'father', husband: 'wife', wife: 'husband', son: 'daughter', daughter: 'son', boy: 'girl', girl: 'boy', male: 'female', female: 'male' },
};

const templateSchema = z
  .object({
    /** Template name (a Prometheus label value). */
    name: labelName,
    /** One SELECT over the facts; `[table.column]` placeholders are bound as parameters, never spliced. */
    sql: z.string().min(1),
    /** Wordings of the same question, each with every placeholder of `sql`. */
    texts: z.array(z.string().min(1)).min(1),
    /** `exact` | `contains` (default) | `number` (with `tolerance`) | `set` (every row) | `judge` (LLM: same meaning?). */
    match: z.enum(MATCH_KINDS).default('contains'),
    /** Relative tolerance of `match: number`. Default 0 (equal after parsing). */
    tolerance: z.number().min(0).default(0),
  })
  .strict();

/** The service's HTTP endpoint as probes and exams ask it. */
export const targetSchema = z
  .object({
    /** The RAG service's endpoint. */
    url: z.string().url(),
    /** `POST` (default: `body` as JSON) or `GET` (`{{query}}` in the URL). */
    method: z.enum(['GET', 'POST']).default('POST'),
    /** Request headers; `${VAR}` is taken from the environment. */
    headers: z.record(z.string(), z.string()).default({}),
    /** JSON body template; `{{query}}` is replaced by the JSON-escaped query. Default `{ question: "{{query}}" }`. */
    body: z.unknown().default({ question: '{{query}}' }),
    /** Dot path to the answer text in the JSON response. */
    answerPath: z.string().min(1),
    /** Dot path to the sources (array of strings or of `{id, content}`), when the service returns them. */
    sourcesPath: z.string().min(1).optional(),
    /** Per-request timeout, milliseconds. Default 30000. */
    timeoutMs: z.number().int().positive().default(30_000),
  })
  .strict();

/** A probe suite file. */
export const probeSuiteSchema = z
  .object({
    /** Suite name (a Prometheus label value). */
    suite: labelName,
    /** Facts: a SQLite file, opened read-only. Relative to the suite file. */
    database: z.string().min(1).optional(),
    /** Facts: a directory of CSV files, one table each (file name = table name), loaded in memory. */
    csv: z.string().min(1).optional(),
    target: targetSchema,
    templates: z.array(templateSchema).min(1),
    /** Variations added to every group. Default none. */
    perturbations: z.array(z.enum(PERTURBATIONS)).default([]),
    /** `demographic` variants: per variant name, words (names, pronouns, group terms) swapped in the first wording, whole words, both ways at once. Default one `swapped_gender` variant. */
    demographics: z.record(labelName, z.record(z.string().regex(/^[\p{L}][\p{L}' -]{0,40}$/u), z.string().min(1).max(60))).default(DEFAULT_DEMOGRAPHICS),
    /** Answers that say the service does not know (case-insensitive regular expressions): `abstained`, not `wrong`. */
    abstainPatterns: z.array(z.string().min(1)).default(["\\b(i don't know|i do not know|not sure|no information|cannot find|can't find|unable to answer)\\b"]),
    limits: z
      .object({
        /** Filled queries per template at most (deterministic subsample of every fill-in combination). Default 20. */
        maxQueriesPerTemplate: z.number().int().positive().default(20),
        /** Requests in flight at once. Default 2. */
        concurrency: z.number().int().positive().default(2),
        /** Requests per minute at most. Default 30. */
        perMinute: z.number().int().positive().default(30),
      })
      .strict()
      .prefault({}),
    /** Alert thresholds of this suite (generated rules and the in-process evaluator compare the last completed run). */
    alerts: z
      .object({
        /** Alert when accuracy (correct / answered) is below this. Default 0.8. */
        minAccuracy: z.number().min(0).max(1).default(0.8),
        /** Alert when robustness R is below this. Default 0.8. */
        minRobustness: z.number().min(0).max(1).default(0.8),
        /** Alert when more than this share of the queries got no answer (timeout, HTTP error, no answer at answerPath). Default 0.1. */
        maxErrorRatio: z.number().min(0).max(1).default(0.1),
        /** Alert severity label. Default `page`. */
        severity: z.string().regex(/^[a-z][a-z0-9_-]*$/).default('page'),
      })
      .strict()
      .prefault({}),
    /** How often the long-running roles run the suite (`15m`, `1h`). Default `15m`. */
    schedule: z
      .object({ every: z.string().regex(/^[1-9][0-9]*(s|m|h)$/, 'a duration like "30s", "15m", "1h"').default('15m') })
      .strict()
      .prefault({}),
  })
  .strict()
  .refine((s) => (s.database === undefined) !== (s.csv === undefined), { message: 'give exactly one of database (SQLite file) or csv (directory)', path: ['database'] });

export type ProbeSuite = z.infer<typeof probeSuiteSchema>;
export type ProbeTemplate = ProbeSuite['templates'][number];
