/**
 * Commands that only derive artifacts from the config (`rules`, `evaluators validate`) load it offline: a
 * config naming SASL mechanisms, a Langfuse URL and Kafka TLS files inside a pod loads without the
 * credentials and files, while the roles that connect still refuse it, naming the key.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadConfig } from '../../src/config/load.ts';
import { BIN, ROOT } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-offline-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the Helm chart renders for a split deployment on SASL/TLS clusters (credentials come from Secrets as env). */
const CONNECTED = {
  alerts: { examplesUrl: 'http://localhost:9465', metrics: { grounding_lexical: { threshold: 0.7, severity: 'page' } } },
  transport: {
    kind: 'kafka',
    kafka: { brokers: ['kafka-0.kafka:9093'], tls: { enabled: true, caFile: '/etc/ragwatch-kafka-tls/ca.crt', certFile: '/etc/ragwatch-kafka-tls/tls.crt', keyFile: '/etc/ragwatch-kafka-tls/tls.key' }, sasl: { mechanism: 'scram-sha-512' } },
  },
  ingest: { kafka: { enabled: true, brokers: ['otel-kafka:9093'], tls: { enabled: true, caFile: '/etc/ragwatch-ingest-kafka-tls/ca.crt' }, sasl: { mechanism: 'plain' } } },
  evaluationExport: { langfuse: { baseUrl: 'https://cloud.langfuse.com' } },
  evaluators: [{ name: 'cites_source', description: 'The answer cites a retrieved source.', kind: 'check', check: { citesSource: true } }],
};
/** The same without anything a connection uses. */
const PLAIN = { alerts: CONNECTED.alerts, evaluators: CONNECTED.evaluators };

function file(name: string, config: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, stringify(config));
  return path;
}

/** The CLI with nothing but PATH in its environment (no credential variable). */
async function ragwatch(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '', NODE_NO_WARNINGS: '1', ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('offline config loads: rules and evaluators need no credentials', () => {
  const connected = file('connected.yaml', CONNECTED);

  it('`ragwatch rules -c` prints the same rules as for the config without its connections, without any credential variable', async () => {
    const [withConnections, without] = await Promise.all([ragwatch(['rules', '-c', connected]), ragwatch(['rules', '-c', file('plain.yaml', PLAIN)])]);
    expect(withConnections.stderr).toBe('');
    expect(withConnections.code).toBe(0);
    expect(withConnections.stdout).toBe(without.stdout);
    const groups = (parse(withConnections.stdout) as { groups: Array<{ rules: Array<{ alert?: string; expr: string }> }> }).groups;
    // The config's own alert settings and evaluator are in them (the file was read, not ignored).
    expect(JSON.stringify(groups)).toContain('cites_source');
    expect(groups.flatMap((g) => g.rules).some((r) => r.expr.includes('grounding_lexical') && r.expr.includes('0.7'))).toBe(true);
  }, 60_000);

  it('`ragwatch evaluators validate -c` lists the evaluators without any credential variable', async () => {
    const res = await ragwatch(['evaluators', 'validate', '-c', connected]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('cites_source');
  }, 60_000);

  it('the roles that connect still refuse the config, naming each missing credential', async () => {
    for (const role of ['start', 'scorer']) {
      const res = await ragwatch([role, '-c', connected]);
      expect(res.code, role).toBe(2);
      for (const key of ['transport.kafka.sasl.username', 'transport.kafka.sasl.password', 'transport.kafka.tls.caFile']) expect(res.stderr, `${role}: ${key}`).toContain(`config key "${key}"`);
    }
    // In process too, with the credentials given and a TLS file missing: the file is still read for a role.
    const env = { RAGWATCH_KAFKA_SASL_USERNAME: 'u', RAGWATCH_KAFKA_SASL_PASSWORD: 'p', RAGWATCH_INGEST_KAFKA_SASL_USERNAME: 'u', RAGWATCH_INGEST_KAFKA_SASL_PASSWORD: 'p', LANGFUSE_PUBLIC_KEY: 'pk', LANGFUSE_SECRET_KEY: 'sk' };
    expect(() => loadConfig({ env, file: connected })).toThrow(/config key "transport\.kafka\.tls\.caFile".*cannot read \/etc\/ragwatch-kafka-tls\/ca\.crt/);
    expect(() => loadConfig({ env: {}, overrides: { evaluationExport: CONNECTED.evaluationExport } })).toThrow(/evaluationExport\.langfuse/);
  }, 120_000);

  it('an offline load validates everything else, keeps given credentials and marks the absent ones', () => {
    const loaded = loadConfig({ env: { RAGWATCH_KAFKA_SASL_USERNAME: 'from-env' }, file: connected, offline: true });
    expect(loaded.transport.kafka.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'from-env', password: '(offline load: RAGWATCH_KAFKA_SASL_PASSWORD not read)' });
    expect(loaded.transport.kafka.tls).toEqual({ enabled: true });
    expect(loaded.evaluationExport.langfuse.secretKey).toBe('(offline load: LANGFUSE_SECRET_KEY not read)');
    // No credential invented where the config asks for none.
    expect(loadConfig({ env: {}, overrides: { evaluationExport: { langfuse: { environment: 'prod' } } }, offline: true }).evaluationExport.langfuse.publicKey).toBeUndefined();
    expect(() => loadConfig({ env: {}, overrides: { transport: { kafka: { sasl: { mechanism: 'kerberos' } } } }, offline: true })).toThrow(/transport\.kafka\.sasl\.mechanism/);
    expect(() => loadConfig({ env: {}, overrides: { ingest: { kafka: { brokers: ['k:9092'], sasl: { mechanism: 'plain' } } } }, offline: true })).toThrow(/SASL PLAIN sends the password in clear/);
  });
});
