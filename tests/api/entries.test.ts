/**
 * The package's entries (issue 47): `ragwatch` holds what a host needs and no more; everything else is
 * under a named subpath in package.json `exports`, each pointing at a built file of a source entry.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; default: string }> };

describe('package entries', () => {
  it('every subpath points at the build of a source entry, and every source entry has a subpath', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      const base = target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '');
      expect(target.types, subpath).toBe(`./dist/${base}.d.ts`);
      expect(existsSync(join(ROOT, 'src', `${base}.ts`)), subpath).toBe(true);
    }
    const subpaths = Object.keys(pkg.exports);
    for (const file of readdirSync(join(ROOT, 'src/api'))) expect(subpaths).toContain(`./${file.replace(/\.ts$/, '')}`);
    expect(subpaths).toEqual(expect.arrayContaining(['.', './plugin', './pipeline', './server', './rules', './judges']));
  });

  it('the main entry exports the processors, config, metric registry, wire contract and errors; the rest is under subpaths', async () => {
    const main = await import('../../src/index.ts');
    expect(Object.keys(main).sort()).toEqual(['BUILTIN_METRICS', 'BUILTIN_REGISTRY', 'ConfigError', 'MAX_EVALUATORS', 'METRIC_NAMES', 'MetricRegistry', 'OtlpDecodeError', 'RagwatchError', 'RagwatchLogRecordProcessor', 'RagwatchSpanProcessor', 'SCHEMA_VERSION', 'defaultConfig', 'fromLogRecord', 'fromReadableSpan', 'loadConfig', 'metricRegistryOf', 'sampledTripletSchema', 'scoreRecordSchema', 'tripletSchema']);
    const plugin = await import('../../src/plugin.ts');
    for (const name of Object.keys(plugin)) expect(main).toHaveProperty(name);
    expect(Object.keys(await import('../../src/api/server.ts')).sort()).toEqual(['QualityMonitor', 'instrumentsOptionsFromConfig', 'startApp']);
    expect(Object.keys(await import('../../src/api/pipeline.ts')).sort()).toEqual(['Pipeline', 'RateSampler', 'RulesSampler', 'ScoringBudget', 'StratifiedSampler', 'createSampler']);
    expect(Object.keys(await import('../../src/api/rules.ts')).sort()).toEqual(['DIAGNOSIS_COMPONENTS', 'DIAGNOSIS_PATTERNS', 'alertName', 'diagnose', 'generateRules']);
    expect(Object.keys(await import('../../src/api/judges.ts')).sort()).toEqual(['EmbeddedJudge', 'LlmJudge', 'aggregateVerdicts', 'createEvaluators', 'createJudge']);
  });
});
