/**
 * `ingest.kafka` configuration: off by default (no consumer, nothing to connect to); its connection is
 * transport.kafka's unless it names brokers of its own (then with its own TLS/SASL); every wrong
 * combination is refused at load time with the key named.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { Pipeline } from '../../src/roles/pipeline.ts';
import { createOtlpTopicIngest, otlpTopicConnection } from '../../src/roles/otlp-topics.ts';

function configError(overrides: Record<string, unknown>): ConfigError {
  try {
    loadConfig({ env: {}, overrides });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('ingest.kafka', () => {
  it('is off by default: no consumer is made', async () => {
    const config = loadConfig({ env: {} });
    expect(config.ingest.kafka).toMatchObject({ enabled: false, groupId: 'ragwatch-otlp', topics: { traces: ['otlp_spans'], logs: [] }, encoding: 'auto', initialOffset: 'latest' });
    const pipeline = new Pipeline({ config });
    expect(createOtlpTopicIngest(config, pipeline, silentLogger, () => undefined)).toBeUndefined();
    await pipeline.shutdown();
  });

  it('uses the transport.kafka connection unless it names brokers of its own, then with its own TLS and SASL', () => {
    const shared = loadConfig({ env: { RAGWATCH_KAFKA_BROKERS: 'k1:9093' }, overrides: { transport: { kafka: { tls: { enabled: true }, sasl: { mechanism: 'scram-sha-512', username: 'rw', password: 'secret' } } }, ingest: { kafka: { enabled: true } } } });
    expect(otlpTopicConnection(shared)).toMatchObject({ brokers: ['k1:9093'], tls: { enabled: true }, sasl: { username: 'rw' } });
    const own = loadConfig({ env: { RAGWATCH_KAFKA_BROKERS: 'k1:9093' }, overrides: { transport: { kafka: { tls: { enabled: true } } }, ingest: { kafka: { enabled: true, brokers: ['otlp-kafka:9092'] } } } });
    const section = otlpTopicConnection(own);
    expect(section.brokers).toEqual(['otlp-kafka:9092']);
    expect(section.tls.enabled).toBe(false);
    expect(section.sasl).toBeUndefined();
  });

  it('enabled without any brokers: a ConfigError naming ingest.kafka.brokers', async () => {
    const config = loadConfig({ env: {}, overrides: { ingest: { kafka: { enabled: true } } } });
    const pipeline = new Pipeline({ config });
    expect(() => createOtlpTopicIngest(config, pipeline, silentLogger, () => undefined)).toThrow(/config key "ingest\.kafka\.brokers": ingest\.kafka is enabled but names no brokers/);
    await pipeline.shutdown();
  });

  it('refuses wrong combinations at load time, naming the key', () => {
    expect(configError({ ingest: { kafka: { enabled: true, topics: { traces: [], logs: [] } } } }).message).toMatch(/ingest\.kafka\.topics.*lists no topic/s);
    expect(configError({ ingest: { kafka: { tls: { enabled: true } } } }).message).toMatch(/ingest\.kafka\.brokers.*apply to ingest\.kafka\.brokers only/s);
    expect(configError({ ingest: { kafka: { brokers: ['b:1'], sasl: { mechanism: 'plain', username: 'u', password: 'p' } } } }).message).toMatch(/ingest\.kafka\.sasl.*SASL PLAIN sends the password in clear/s);
    expect(configError({ ingest: { kafka: { topics: { traces: ['otlp spans'] } } } }).message).toMatch(/ingest\.kafka\.topics\.traces/);
    expect(configError({ ingest: { kafka: { encoding: 'zipkin_proto' } } }).message).toMatch(/ingest\.kafka\.encoding/);
  });
});
