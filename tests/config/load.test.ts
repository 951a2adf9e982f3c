import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { defaultConfig, loadConfig } from '../../src/config/load.ts';
import { ROOT } from '../helpers/process.ts';

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('uses the documented defaults with an empty environment', () => {
    const c = loadConfig({ env: {} });
    expect(c.server).toMatchObject({ host: '127.0.0.1', otlpPort: 4318, httpPort: 9464 });
    expect(c.transport.kind).toBe('memory');
    expect(c.judge.kind).toBe('embedded');
    expect(c.sampling.rate).toBe(1);
  });

  it('config/ragwatch.yaml documents exactly the defaults', () => {
    const doc = parse(readFileSync(`${ROOT}/config/ragwatch.yaml`, 'utf8')) as Record<string, unknown>;
    expect(loadConfig({ env: {}, file: `${ROOT}/config/ragwatch.yaml` })).toEqual(defaultConfig());
    expect(Object.keys(doc).sort()).toEqual(Object.keys(defaultConfig()).sort());
  });

  it('applies environment overrides', () => {
    const c = loadConfig({
      env: {
        RAGWATCH_OTLP_PORT: '14318',
        RAGWATCH_HTTP_PORT: '19464',
        RAGWATCH_HOST: '0.0.0.0',
        RAGWATCH_TRANSPORT: 'kafka',
        RAGWATCH_KAFKA_BROKERS: 'a:9092, b:9092',
        RAGWATCH_SAMPLE_RATE: '0.25',
        RAGWATCH_JUDGE_MODEL: 'judge-1',
        OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
      },
    });
    expect(c.server).toMatchObject({ otlpPort: 14318, httpPort: 19464, host: '0.0.0.0' });
    expect(c.transport.kind).toBe('kafka');
    expect(c.transport.kafka.brokers).toEqual(['a:9092', 'b:9092']);
    expect(c.sampling.rate).toBe(0.25);
    expect(c.judge.model).toBe('judge-1');
    expect(c.judge.baseUrl).toBe('http://127.0.0.1:8000/v1');
  });

  it('fills the credentials of ingest.kafka\'s own cluster and of Phoenix from the environment (Secrets), the rest from the file', () => {
    const env = { RAGWATCH_INGEST_KAFKA_SASL_USERNAME: 'otlp-reader', RAGWATCH_INGEST_KAFKA_SASL_PASSWORD: 'pw-from-secret', PHOENIX_API_KEY: 'px-from-secret' };
    const overrides = { ingest: { kafka: { enabled: true, brokers: ['otel-kafka:9093'], tls: { enabled: true }, sasl: { mechanism: 'scram-sha-512' } } }, evaluationExport: { phoenix: { endpoint: 'http://phoenix:6006' } } };
    // Credentials alone are no SASL config: the mechanism (and brokers) must come from the file.
    expect(() => loadConfig({ env })).toThrow(/config key "ingest\.kafka\.sasl\.mechanism"/);
    const withFile = loadConfig({ env, overrides });
    expect(withFile.ingest.kafka.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'otlp-reader', password: 'pw-from-secret' });
    expect(withFile.evaluationExport.phoenix.apiKey).toBe('px-from-secret');
  });

  it('names the env variable and the key for a bad port', () => {
    const err = errorOf(() => loadConfig({ env: { RAGWATCH_OTLP_PORT: '70000' } }));
    expect(err.keys).toContain('server.otlpPort');
    expect(err.message).toContain('server.otlpPort');
    expect(err.message).toContain('RAGWATCH_OTLP_PORT');
    expect(err.message).toMatch(/65535/);
  });

  it('names the key for a wrong type', () => {
    const err = errorOf(() => loadConfig({ env: { RAGWATCH_HTTP_PORT: 'abc' } }));
    expect(err.message).toContain('server.httpPort');
    expect(err.message).toContain('"abc"');
    expect(err.message).toMatch(/expected number/);
  });

  it('lists the allowed values of an enum', () => {
    const err = errorOf(() => loadConfig({ env: { RAGWATCH_TRANSPORT: 'rabbit' } }));
    expect(err.message).toContain('transport.kind');
    expect(err.message).toMatch(/"memory"/);
    expect(err.message).toMatch(/"kafka"/);
  });

  it('rejects an unknown key in a file, naming it', () => {
    const err = errorOf(() => loadConfig({ env: {}, overrides: { server: { otlpPrt: 1 } } }));
    expect(err.keys).toContain('server.otlpPrt');
    expect(err.message).toMatch(/server\.otlpPrt.*unknown key/);
  });

  it('rejects a sample rate outside [0, 1]', () => {
    const err = errorOf(() => loadConfig({ env: { RAGWATCH_SAMPLE_RATE: '1.5' } }));
    expect(err.message).toContain('sampling.rate');
  });

  it('reports an unreadable config file by name', () => {
    const err = errorOf(() => loadConfig({ env: { RAGWATCH_CONFIG: '/nonexistent/ragwatch.yaml' } }));
    expect(err.code).toBe('RAGWATCH_CONFIG_UNREADABLE');
    expect(err.message).toContain('/nonexistent/ragwatch.yaml');
  });

  it('never echoes secrets in error messages', () => {
    const err = errorOf(() => loadConfig({ env: { OPENAI_API_KEY: 'sk-secret-value', RAGWATCH_HTTP_PORT: 'x' } }));
    expect(err.message).not.toContain('sk-secret-value');
  });
});

describe('alerts.metrics', () => {
  it('names metrics of the registry: a misspelt one is refused, naming the key and the built-ins', () => {
    const err = errorOf(() => loadConfig({ env: {}, overrides: { alerts: { metrics: { grounedness: { threshold: 0.5 } } } } }));
    expect(err.keys).toEqual(['alerts.metrics.grounedness']);
    expect(err.message).toContain('unknown metric "grounedness"; the built-in metrics are groundedness, faithfulness');
  });
});
