/**
 * Kafka security settings from config: TLS (verification always on, PEM files read by the config
 * loader), SASL plain/scram, and refusal of PLAIN without TLS. The mock cluster has no TLS or SASL,
 * so this checks the client options ragwatch hands to kafkajs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/errors.ts';
import { kafkaConfigOf } from '../../src/transport/kafka-client.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-kafka-tls-'));
const ca = join(dir, 'ca.pem');
writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(kafka: Record<string, unknown>, env: Record<string, string> = {}) {
  return loadConfig({ env, overrides: { transport: { kind: 'kafka', kafka: { brokers: ['k1:9093'], ...kafka } } } });
}

describe('kafka client options from config', () => {
  it('enables verified TLS with the CA read from caFile, and SCRAM with the password from the environment', () => {
    const config = load({ tls: { enabled: true, caFile: ca, servername: 'kafka.internal' }, sasl: { mechanism: 'scram-sha-512', username: 'ragwatch' } }, { RAGWATCH_KAFKA_SASL_PASSWORD: 's3cret-from-env' });
    const options = kafkaConfigOf(config.transport.kafka);
    expect(options.brokers).toEqual(['k1:9093']);
    expect(options.ssl).toEqual({ rejectUnauthorized: true, ca: [expect.stringContaining('BEGIN CERTIFICATE')], servername: 'kafka.internal' });
    expect(options.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'ragwatch', password: 's3cret-from-env' });
  });

  it('mutual TLS: client certificate and key read from their files, both or neither; TLS files with TLS off are refused', () => {
    const cert = join(dir, 'client.crt');
    const key = join(dir, 'client.key');
    writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n');
    writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nclient\n-----END PRIVATE KEY-----\n');
    const options = kafkaConfigOf(load({ tls: { enabled: true, caFile: ca, certFile: cert, keyFile: key } }).transport.kafka);
    expect(options.ssl).toMatchObject({ rejectUnauthorized: true, cert: expect.stringContaining('\nclient\n'), key: expect.stringContaining('BEGIN PRIVATE KEY') });
    expect(() => load({ tls: { enabled: true, certFile: cert } })).toThrow(/config key "transport\.kafka\.tls\.keyFile".*both certFile and keyFile/);
    expect(() => load({ tls: { caFile: ca } })).toThrow(/config key "transport\.kafka\.tls\.enabled".*TLS is off/);
    expect(() => loadConfig({ env: {}, overrides: { ingest: { kafka: { brokers: ['k:9093'], tls: { enabled: true, keyFile: key } } } } })).toThrow(/config key "ingest\.kafka\.tls\.keyFile"/);
  });

  it('has no TLS or SASL by default', () => {
    const options = kafkaConfigOf(load({}).transport.kafka);
    expect(options.ssl).toBeUndefined();
    expect(options.sasl).toBeUndefined();
  });

  it('refuses SASL PLAIN without TLS, an unreadable caFile, and kafka without brokers — naming the key', () => {
    expect(() => load({ sasl: { mechanism: 'plain', username: 'u', password: 'p' } })).toThrow(/transport\.kafka.*tls/);
    let err: unknown;
    try {
      load({ tls: { enabled: true, caFile: join(dir, 'missing.pem') } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).keys).toContain('transport.kafka.tls.caFile');
    expect(() => loadConfig({ env: { RAGWATCH_TRANSPORT: 'kafka' } })).toThrow(/transport\.kafka\.brokers/);
  });
});
