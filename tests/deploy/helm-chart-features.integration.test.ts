/**
 * The chart's wiring of ingest.kafka, evaluationExport, feedback, history and evaluators, rendered by the
 * real helm: each Deployment's pod is laid out as the kubelet would (its ConfigMaps as files, its
 * environment with the Secrets it references resolved from fake ones) and its config loaded by ragwatch's
 * own loader and CLI; then the loaded config is read for what the role runs: which pod reads the OTLP
 * topics and with which credentials, which pod exports verdicts, where feedback is accepted, which pod
 * keeps the history on which volume, and which evaluators every pod sees.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runHelm } from '../../scripts/helm.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { RagwatchConfig } from '../../src/config/schema.ts';
import { feedbackRoute } from '../../src/roles/feedback.ts';
import { otlpTopicConnection } from '../../src/roles/otlp-topics.ts';
import { kafkaConfigOf } from '../../src/transport/kafka-client.ts';
import { BIN, ROOT } from '../helpers/process.ts';
import { CHART, deploymentOf, fakeSecretsFor, helmTemplate, ofKind, podEnvironment, secretsOfVolume, validateObject, type DeploymentObject, type FakeSecrets, type K8sObject } from './chart-render.ts';

const CRDS = ['--api-versions', 'monitoring.coreos.com/v1'];
const EVALUATORS = join(ROOT, 'config', 'examples', 'evaluators');
const tmp = mkdtempSync(join(tmpdir(), 'ragwatch-chart-features-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SPLIT = join(ROOT, 'helm', 'examples', 'otel-kafka-split.values.yaml');
const ALL_IN_ONE = join(ROOT, 'helm', 'examples', 'evaluation-export.values.yaml');
/** The check evaluators of config/examples/evaluators (the LLM ones need an LLM judge). */
const EVALUATOR_FILES = ['10-cites-source.yaml', '40-json-answer.yaml'];
const evaluatorFileArgs = EVALUATOR_FILES.flatMap((f) => ['--set-file', `evaluators.files.${f.replaceAll('.', '\\.')}=${join(EVALUATORS, f)}`]);

type Env = Record<string, string>;
interface Pod {
  deployment: DeploymentObject;
  env: Env;
  config: RagwatchConfig;
}

/** Lays out the pod of `ragwatch <command>` and loads its config with ragwatch's loader, as the process would at start. */
function pod(objects: K8sObject[], command: string, secrets: FakeSecrets, extraConfigMaps: Record<string, Record<string, string>> = {}): Pod {
  const deployment = deploymentOf(objects, command);
  const env = podEnvironment(objects, deployment, secrets, mkdtempSync(join(tmp, `${command}-`)), extraConfigMaps);
  return { deployment, env, config: loadConfig({ env }) };
}

/**
 * `ragwatch evaluators validate` (which loads the whole config, offline: credentials and TLS files are
 * checked by {@link pod}'s loadConfig, as the roles load it) with the pod's environment: the real CLI accepts it.
 */
function cliAccepts(p: Pod): void {
  const res = spawnSync(process.execPath, [BIN, 'evaluators', 'validate'], { cwd: ROOT, env: { PATH: process.env.PATH, ...p.env }, encoding: 'utf8' });
  expect(res.stderr, p.deployment.metadata.name).toBe('');
  expect(res.status, p.deployment.metadata.name).toBe(0);
}

/** `ragwatch rules -c FILE`, the documented way to regenerate the rules. */
function ragwatchRules(configFile: string): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RAGWATCH_') && !k.startsWith('OPENAI_')));
  const res = spawnSync(process.execPath, [BIN, 'rules', '-c', configFile], { cwd: ROOT, env, encoding: 'utf8' });
  expect(res.stderr).toBe('');
  expect(res.status).toBe(0);
  return res.stdout;
}

/**
 * The rules a user generates for a values file (the documented flow: `node scripts/build-chart-rules.ts
 * --values`, which reads `evaluators.files` and leaves out the sections whose credentials are in Secrets).
 */
function rulesFor(valuesFile: string, withEvaluators: boolean): string {
  const dir = mkdtempSync(join(tmp, 'rules-'));
  const values = parse(readFileSync(valuesFile, 'utf8')) as Record<string, unknown>;
  if (withEvaluators) values.evaluators = { files: Object.fromEntries(EVALUATOR_FILES.map((f) => [f, readFileSync(join(EVALUATORS, f), 'utf8')])) };
  writeFileSync(join(dir, 'values.yaml'), JSON.stringify(values));
  const res = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-chart-rules.ts'), '--values', join(dir, 'values.yaml')], { cwd: ROOT, encoding: 'utf8' });
  expect(res.stderr).toBe('');
  expect(res.status).toBe(0);
  const rules = join(dir, 'rules.yaml');
  writeFileSync(rules, res.stdout);
  return rules;
}

const secretNames = (d: DeploymentObject) => (d.spec.template.spec.containers[0]!.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name).sort();
const dataVolume = (d: DeploymentObject) => (d.spec.template.spec.volumes as Array<{ name: string; emptyDir?: unknown; persistentVolumeClaim?: { claimName: string } }>).find((v) => v.name === 'data');

describe('helm chart: split mode with ingest.kafka, feedback, evaluation export, history and evaluator files', () => {
  const rules = rulesFor(SPLIT, true);
  const objects = helmTemplate(['-f', SPLIT, ...evaluatorFileArgs, '--set-file', `prometheusRule.rules=${rules}`, ...CRDS]);
  const secrets = fakeSecretsFor(objects);
  const pods = Object.fromEntries(['collector', 'assembler', 'scorer', 'slices'].map((c) => [c, pod(objects, c, secrets)]));
  const { collector, assembler, scorer, slices } = pods as Record<string, Pod>;

  it('passes helm lint --strict and renders only valid objects (the PersistentVolumeClaim too)', () => {
    const lint = runHelm(['lint', '--strict', CHART, '-f', SPLIT, ...evaluatorFileArgs, '--set-file', `prometheusRule.rules=${rules}`]);
    expect(lint.stdout + lint.stderr).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(objects.map((o) => o.kind)).toContain('PersistentVolumeClaim');
    for (const obj of objects) expect(() => validateObject(obj), `${obj.kind}/${obj.metadata.name}`).not.toThrow();
  });

  it('every pod config loads in ragwatch (loader and CLI), with the Secrets of its own role only', () => {
    for (const p of [collector, assembler, scorer, slices]) cliAccepts(p!);
    const transport = ['RAGWATCH_KAFKA_SASL_PASSWORD', 'RAGWATCH_KAFKA_SASL_USERNAME', 'RAGWATCH_REDACTION_HMAC_KEY'];
    expect(secretNames(collector!.deployment)).toEqual([...transport, 'RAGWATCH_BEARER_TOKEN', 'RAGWATCH_INGEST_KAFKA_SASL_PASSWORD', 'RAGWATCH_INGEST_KAFKA_SASL_USERNAME'].sort());
    expect(secretNames(scorer!.deployment)).toEqual([...transport, 'OTEL_EXPORTER_OTLP_LOGS_HEADERS'].sort());
    expect(secretNames(assembler!.deployment)).toEqual(transport.sort());
    expect(secretNames(slices!.deployment)).toEqual(transport.sort());
    // No credential of these features in any ConfigMap.
    const configMaps = JSON.stringify(ofKind(objects, 'ConfigMap'));
    for (const name of ['otel-kafka', 'ragwatch-ingest', 'ragwatch-otlp-export']) for (const value of Object.values(secrets[name]!)) expect(configMaps).not.toContain(value);
  });

  it('ingest.kafka: the collectors read otlp_spans from the Collector\'s cluster with its own SASL Secret; no other role reads it', () => {
    expect(collector!.config.ingest.kafka).toMatchObject({ enabled: true, groupId: 'ragwatch-otlp', topics: { traces: ['otlp_spans'] } });
    const connection = otlpTopicConnection(collector!.config);
    expect(connection.brokers).toEqual(['otel-kafka-0.otel:9093', 'otel-kafka-1.otel:9093']);
    expect(connection.tls.enabled).toBe(true);
    expect(connection.sasl).toEqual({ mechanism: 'scram-sha-256', username: secrets['otel-kafka']!.username, password: secrets['otel-kafka']!.password });
    // The spans it reads go to the transport cluster, with the transport Secret.
    expect(collector!.config.transport.kafka.sasl).toEqual({ mechanism: 'scram-sha-512', username: secrets['ragwatch-kafka']!.username, password: secrets['ragwatch-kafka']!.password });
    for (const p of [assembler, scorer, slices]) expect(p!.config.ingest.kafka.enabled, p!.deployment.metadata.name).toBe(false);
  });

  it('evaluationExport: only the scorers export, to the configured endpoint, with the headers Secret merged over the plain ones', () => {
    expect(scorer!.config.evaluationExport.select).toBe('failing');
    expect(scorer!.config.evaluationExport.otlp).toMatchObject({ endpoint: 'http://otel-collector.observability:4318/v1/logs', protocol: 'http/protobuf' });
    expect(scorer!.config.evaluationExport.otlp.headers).toEqual({ 'X-Scope-OrgID': 'rag-team', Authorization: `Bearer ${'ragwatch-otlp-export.headers'.padEnd(32, '0')}` });
    for (const p of [collector, assembler, slices]) expect(p!.config.evaluationExport.otlp.endpoint, p!.deployment.metadata.name).toBeUndefined();
  });

  it('feedback: accepted where ingest lives (the collectors, with the ingest token), shared over one labels topic', () => {
    expect(collector!.config.server.bearerToken).toBe(secrets['ragwatch-ingest']!.token);
    expect(collector!.config.server.host).toBe('0.0.0.0');
    expect(feedbackRoute(collector!.config.server, {} as never).refusal).toBeUndefined();
    // Without the Secret the collectors refuse feedback (a write on 0.0.0.0), naming the key.
    const open = helmTemplate(['-f', SPLIT, '--set', 'ingest.bearerToken.secretName=', '--set', 'prometheusRule.enabled=false']);
    const openCollector = pod(open, 'collector', fakeSecretsFor(open));
    expect(feedbackRoute(openCollector.config.server, {} as never).refusal).toMatch(/server\.bearerToken/);
    expect(collector!.config.feedback.enabled).toBe(true);
    expect(new Set([collector, scorer].map((p) => p!.config.transport.kafka.topics.labels))).toEqual(new Set(['ragwatch.labels.v1']));
    expect(scorer!.env.RAGWATCH_DATA_DIR).toBeDefined();
  });

  it('history: the slices pod keeps it, 30 days, on the chart\'s claim; the scorers keep an emptyDir', () => {
    expect(slices!.config.history).toMatchObject({ enabled: true, retention: '30d' });
    expect(slices!.env.RAGWATCH_DATA_DIR).toMatch(/\/var\/lib\/ragwatch$/);
    expect(dataVolume(slices!.deployment)!.persistentVolumeClaim).toEqual({ claimName: 'rw-ragwatch-data' });
    expect(dataVolume(scorer!.deployment)!.emptyDir).toBeDefined();
    const [pvc] = ofKind<K8sObject & { spec: { accessModes: string[]; resources: { requests: { storage: string } }; storageClassName?: string } }>(objects, 'PersistentVolumeClaim');
    expect(pvc!.metadata.name).toBe('rw-ragwatch-data');
    expect(pvc!.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    expect(pvc!.spec).toMatchObject({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } });
    expect(pvc!.spec.storageClassName).toBeUndefined();
    const classed = ofKind<K8sObject & { spec: { storageClassName?: string } }>(helmTemplate(['-f', SPLIT, '--set', 'store.persistence.storageClass=fast-ssd', '--set', 'store.persistence.keepOnUninstall=false', '--set', 'prometheusRule.enabled=false']), 'PersistentVolumeClaim')[0]!;
    expect(classed.spec.storageClassName).toBe('fast-ssd');
    expect(classed.metadata.annotations?.['helm.sh/resource-policy']).toBeUndefined();
  });

  it('evaluators from files: mounted on every pod, which all load the same evaluators; the PrometheusRule is what `ragwatch rules` makes of them', () => {
    for (const p of [collector, assembler, scorer, slices]) expect(p!.config.evaluators.map((e) => e.name), p!.deployment.metadata.name).toEqual(['cites_source', 'json_answer']);
    expect(ofKind(objects, 'ConfigMap').map((c) => c.metadata.name)).toContain('rw-ragwatch-evaluators');
    const [rule] = ofKind<K8sObject & { spec: { groups: Array<{ rules: Array<{ alert?: string }> }> } }>(objects, 'PrometheusRule');
    expect(rule!.spec).toEqual(parse(readFileSync(rules, 'utf8')));
    expect(JSON.stringify(rule!.spec)).toContain('cites_source');
  });
});

describe('helm chart: all-in-one with the same features', () => {
  const objects = helmTemplate(['-f', ALL_IN_ONE, '--set', 'evaluators.existingConfigMap=team-evaluators', '--set-file', `prometheusRule.rules=${rulesFor(ALL_IN_ONE, true)}`, ...CRDS]);
  const secrets = fakeSecretsFor(objects);
  const teamEvaluators = Object.fromEntries(EVALUATOR_FILES.map((f) => [f, readFileSync(join(EVALUATORS, f), 'utf8')]));
  const start = pod(objects, 'start', secrets, { 'team-evaluators': teamEvaluators });

  it('one pod runs everything: its config loads, with every feature\'s Secret', () => {
    cliAccepts(start);
    expect(secretNames(start.deployment)).toEqual(['LANGFUSE_PUBLIC_KEY', 'LANGFUSE_SECRET_KEY', 'PHOENIX_API_KEY', 'RAGWATCH_KAFKA_SASL_PASSWORD', 'RAGWATCH_KAFKA_SASL_USERNAME', 'RAGWATCH_REDACTION_HMAC_KEY']);
    expect(ofKind(objects, 'ConfigMap').map((c) => c.metadata.name)).not.toContain('rw-ragwatch-evaluators');
    expect(start.config.evaluators.map((e) => e.name)).toEqual(['cites_source', 'json_answer']);
  });

  it('ingest.kafka without brokers of its own reads the transport cluster with the kafka.sasl Secret', () => {
    const connection = otlpTopicConnection(start.config);
    expect(connection.brokers).toEqual(['kafka-0.kafka:9093']);
    expect(connection.sasl).toEqual({ mechanism: 'scram-sha-512', username: secrets['ragwatch-kafka']!.username, password: secrets['ragwatch-kafka']!.password });
  });

  it('evaluationExport: OTLP over gRPC, Phoenix and Langfuse credentials from their Secrets', () => {
    const ex = start.config.evaluationExport;
    expect(ex.otlp).toMatchObject({ endpoint: 'http://otel-collector.observability:4317', protocol: 'grpc' });
    expect(ex.phoenix).toMatchObject({ endpoint: 'http://phoenix.observability:6006', apiKey: secrets.phoenix!['api-key'] });
    expect(ex.langfuse).toMatchObject({ baseUrl: 'https://cloud.langfuse.com', environment: 'production', publicKey: secrets.langfuse!['public-key'], secretKey: secrets.langfuse!['secret-key'] });
  });

  it('history on the claim, one replica replaced with Recreate (SQLite has one writer)', () => {
    expect(start.config.history.retention).toBe('14d');
    expect(dataVolume(start.deployment)!.persistentVolumeClaim).toEqual({ claimName: 'rw-ragwatch-data' });
    expect((start.deployment.spec as unknown as { strategy: unknown }).strategy).toEqual({ type: 'Recreate' });
    expect((deploymentOf(helmTemplate([]), 'start').spec as unknown as { strategy?: unknown }).strategy).toBeUndefined();
  });
});

describe('helm chart: Kafka TLS files from Secrets (private CA, mutual TLS)', () => {
  const mutualTls = ['--set', 'kafka.tls.clientCert.secretName=ragwatch-user', '--set', 'kafka.tls.clientCert.certKey=user.crt', '--set', 'kafka.tls.clientCert.keyKey=user.key'];
  const rules = rulesFor(SPLIT, false);
  const objects = helmTemplate(['-f', SPLIT, ...mutualTls, '--set-file', `prometheusRule.rules=${rules}`, ...CRDS]);
  const secrets = fakeSecretsFor(objects);
  const commands = ['collector', 'assembler', 'scorer', 'slices'];
  const pods = Object.fromEntries(commands.map((c) => [c, pod(objects, c, secrets)])) as Record<string, Pod>;
  const configMap = ofKind<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap').find((c) => c.metadata.name === 'rw-ragwatch-config')!;
  /** The mounted files of a pod: absolute path in the pod → [Secret, key]. */
  const mountedFiles = (d: DeploymentObject) => {
    const spec = d.spec.template.spec;
    const files = new Map<string, [string, string]>();
    for (const m of spec.containers[0]!.volumeMounts ?? []) {
      for (const [name, projection] of secretsOfVolume(spec.volumes?.find((v) => v.name === m.name))) {
        expect(m.readOnly, `${d.metadata.name} ${m.mountPath}`).toBe(true);
        for (const item of projection.items ?? []) files.set(`${m.mountPath}/${item.path}`, [name, item.key]);
      }
    }
    return files;
  };

  it('renders valid objects that pass helm lint --strict; every pod config loads in the real CLI', () => {
    const lint = runHelm(['lint', '--strict', CHART, '-f', SPLIT, ...mutualTls, '--set-file', `prometheusRule.rules=${rules}`]);
    expect(lint.stdout + lint.stderr).toContain('1 chart(s) linted, 0 chart(s) failed');
    for (const obj of objects) expect(() => validateObject(obj), `${obj.kind}/${obj.metadata.name}`).not.toThrow();
    for (const c of commands) cliAccepts(pods[c]!);
  });

  it('every pod mounts the transport cluster\'s CA and client certificate; only the collectors the ingest cluster\'s CA', () => {
    const transportFiles = [
      ['/etc/ragwatch-kafka-tls/ca.crt', ['kafka-cluster-ca-cert', 'ca.crt']],
      ['/etc/ragwatch-kafka-tls/tls.crt', ['ragwatch-user', 'user.crt']],
      ['/etc/ragwatch-kafka-tls/tls.key', ['ragwatch-user', 'user.key']],
    ];
    for (const c of commands) {
      const expected = c === 'collector' ? [...transportFiles, ['/etc/ragwatch-ingest-kafka-tls/ca.crt', ['otel-kafka-ca', 'ca.crt']]] : transportFiles;
      expect([...mountedFiles(pods[c]!.deployment)].sort(), c).toEqual(expected.sort());
    }
  });

  it('the config\'s file paths are the mounted files, and the loaded connection carries the Secrets\' PEM to kafkajs', () => {
    for (const c of commands) {
      const d = pods[c]!.deployment;
      const rendered = parse(configMap.data[pods[c]!.env.RAGWATCH_CONFIG!.split('/').pop()!]!) as { transport: { kafka: { tls: Record<string, unknown> } }; ingest?: { kafka: { tls: Record<string, unknown> } } };
      const files = mountedFiles(d);
      for (const tls of [rendered.transport.kafka.tls, rendered.ingest?.kafka.tls].filter((t) => t !== undefined)) {
        for (const key of ['caFile', 'certFile', 'keyFile'] as const) if (tls[key] !== undefined) expect(files.has(tls[key] as string), `${c} ${key} ${String(tls[key])}`).toBe(true);
      }
      expect(rendered.transport.kafka.tls).toEqual({ enabled: true, caFile: '/etc/ragwatch-kafka-tls/ca.crt', certFile: '/etc/ragwatch-kafka-tls/tls.crt', keyFile: '/etc/ragwatch-kafka-tls/tls.key' });
      expect(kafkaConfigOf(pods[c]!.config.transport.kafka).ssl, c).toEqual({
        rejectUnauthorized: true,
        ca: [secrets['kafka-cluster-ca-cert']!['ca.crt']],
        cert: secrets['ragwatch-user']!['user.crt'],
        key: secrets['ragwatch-user']!['user.key'],
      });
    }
    const ingest = kafkaConfigOf(otlpTopicConnection(pods.collector!.config)).ssl;
    expect(ingest).toEqual({ rejectUnauthorized: true, ca: [secrets['otel-kafka-ca']!['ca.crt']] });
    for (const c of ['assembler', 'scorer', 'slices']) expect(pods[c]!.config.ingest.kafka.enabled, c).toBe(false);
  });

  it('the PEM is mounted, never inlined: in no ConfigMap and no environment variable', () => {
    const inlined = JSON.stringify(ofKind(objects, 'ConfigMap')) + JSON.stringify(ofKind<DeploymentObject>(objects, 'Deployment').map((d) => d.spec.template.spec.containers[0]!.env));
    for (const [name, key] of [['kafka-cluster-ca-cert', 'ca.crt'], ['ragwatch-user', 'user.crt'], ['ragwatch-user', 'user.key'], ['otel-kafka-ca', 'ca.crt']] as const) {
      expect(inlined).not.toContain(secrets[name]![key]!.split('\n')[1]);
      expect(inlined).not.toContain(`"${name}"`);
    }
  });

  it('`ragwatch rules -c` on the rendered ragwatch.yaml (Secrets and mounts absent here) prints the PrometheusRule the chart renders', () => {
    const file = join(mkdtempSync(join(tmp, 'rendered-')), 'ragwatch.yaml');
    writeFileSync(file, configMap.data['ragwatch.yaml']!);
    const [rule] = ofKind<K8sObject & { spec: unknown }>(objects, 'PrometheusRule');
    expect(parse(ragwatchRules(file))).toEqual(rule!.spec);
  });

  it('extraVolumes and extraVolumeMounts reach every pod', () => {
    const extra = helmTemplate(['-f', SPLIT, '--set', 'prometheusRule.enabled=false', '--set', 'extraVolumes[0].name=judge-ca', '--set', 'extraVolumes[0].configMap.name=corp-ca', '--set', 'extraVolumeMounts[0].name=judge-ca', '--set', 'extraVolumeMounts[0].mountPath=/etc/corp-ca', '--set', 'extraVolumeMounts[0].readOnly=true']);
    for (const c of commands) {
      const spec = deploymentOf(extra, c).spec.template.spec;
      expect(spec.volumes, c).toContainEqual({ name: 'judge-ca', configMap: { name: 'corp-ca' } });
      expect(spec.containers[0]!.volumeMounts, c).toContainEqual({ name: 'judge-ca', mountPath: '/etc/corp-ca', readOnly: true });
    }
    for (const obj of extra) expect(() => validateObject(obj), `${obj.kind}/${obj.metadata.name}`).not.toThrow();
  });
});

describe('helm chart: refusals name the values key', () => {
  const refusals: Array<[string, string[], string]> = [
    ['a Langfuse key inline', ['-f', ALL_IN_ONE, '--set', 'config.evaluationExport.langfuse.secretKey=sk-lf-inline'], 'evaluationExport.langfuse.secretName'],
    ['Langfuse without its Secret', ['-f', ALL_IN_ONE, '--set', 'evaluationExport.langfuse.secretName='], 'evaluationExport.langfuse.secretName'],
    ['a Phoenix key inline', ['-f', ALL_IN_ONE, '--set', 'config.evaluationExport.phoenix.apiKey=px-inline'], 'evaluationExport.phoenix.apiKey.secretName'],
    ['a credential in the plain OTLP headers', ['-f', SPLIT, '--set', 'config.evaluationExport.otlp.headers.Authorization=Bearer x'], 'evaluationExport.otlp.headers.secretName'],
    ['an ingest.kafka password inline', ['-f', SPLIT, '--set', 'config.ingest.kafka.sasl.password=inline'], 'ingest.kafka.sasl.secretName'],
    ['a transport password inline', ['-f', SPLIT, '--set', 'config.transport.kafka.sasl.password=inline'], 'kafka.sasl.secretName'],
    ['ingest.kafka SASL without its Secret', ['-f', SPLIT, '--set', 'ingest.kafka.sasl.secretName='], 'ingest.kafka.sasl.secretName'],
    ['the ingest.kafka Secret without SASL', ['-f', ALL_IN_ONE, '--set', 'ingest.kafka.sasl.secretName=otel-kafka'], 'config.ingest.kafka.sasl.mechanism'],
    ['the transport SASL Secret without a mechanism', ['-f', SPLIT, '--set', 'config.transport.kafka.sasl=null'], 'config.transport.kafka.sasl.mechanism'],
    ['a transport SASL mechanism without its Secret', ['-f', SPLIT, '--set', 'kafka.sasl.secretName='], 'kafka.sasl.secretName'],
    ['ingest.kafka without any brokers', ['--set', 'config.ingest.kafka.enabled=true'], 'config.ingest.kafka.brokers'],
    ['evaluators inline and as files', ['-f', join(ROOT, 'helm', 'examples', 'evaluators.values.yaml'), '--set', 'evaluators.existingConfigMap=x'], 'not both'],
    ['a claim for two all-in-one replicas', ['--set', 'store.persistence.enabled=true', '--set', 'allInOne.replicaCount=2'], 'allInOne.replicaCount'],
    ['bundled rules with evaluator files', [...CRDS, ...evaluatorFileArgs], 'prometheusRule.rules'],
    ['bundled rules with the feedback alert changed', [...CRDS, '--set', 'config.feedback.alert.minSamples=50'], 'config.feedback'],
    ['an evaluator file not named *.yaml (values.schema.json)', ['--set', 'evaluators.files.cites=x'], "'cites' does not match pattern"],
    ['a Kafka CA Secret with TLS off', ['-f', SPLIT, '--set', 'config.transport.kafka.tls.enabled=false'], 'config.transport.kafka.tls.enabled'],
    ['a Kafka CA Secret and a caFile', ['-f', SPLIT, '--set', 'config.transport.kafka.tls.caFile=/etc/ssl/ca.pem'], 'kafka.tls.ca.secretName'],
    ['a client certificate Secret and a keyFile', ['-f', SPLIT, '--set', 'kafka.tls.clientCert.secretName=u', '--set', 'config.transport.kafka.tls.keyFile=/k'], 'kafka.tls.clientCert.secretName'],
    ['an ingest.kafka CA Secret without brokers of its own', ['-f', ALL_IN_ONE, '--set', 'ingest.kafka.tls.ca.secretName=otel-ca'], 'config.ingest.kafka.brokers'],
    ['an ingest.kafka CA Secret with its TLS off', ['-f', SPLIT, '--set', 'config.ingest.kafka.tls.enabled=false', '--set', 'config.ingest.kafka.sasl.mechanism=scram-sha-512'], 'config.ingest.kafka.tls.enabled'],
    ['an ingest.kafka CA Secret and a caFile', ['-f', SPLIT, '--set', 'config.ingest.kafka.tls.caFile=/c'], 'ingest.kafka.tls.ca.secretName'],
  ];
  it.each(refusals)('%s', (_name, args, key) => {
    const res = runHelm(['template', 'rw', CHART, ...args]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain(key);
  });

  it('the feedback alert turned off with regenerated rules renders them (no feedback groups)', () => {
    const dir = mkdtempSync(join(tmp, 'feedback-'));
    writeFileSync(join(dir, 'ragwatch.yaml'), JSON.stringify({ alerts: { examplesUrl: 'http://localhost:9465' }, feedback: { alert: { enabled: false } } }));
    const rules = join(dir, 'rules.yaml');
    writeFileSync(rules, ragwatchRules(join(dir, 'ragwatch.yaml')));
    const [rule] = ofKind<K8sObject & { spec: unknown }>(helmTemplate([...CRDS, '--set', 'config.feedback.alert.enabled=false', '--set-file', `prometheusRule.rules=${rules}`]), 'PrometheusRule');
    expect(JSON.stringify(rule!.spec)).not.toContain('ragwatch:feedback_');
    const [bundled] = ofKind<K8sObject & { spec: unknown }>(helmTemplate(CRDS), 'PrometheusRule');
    expect(JSON.stringify(bundled!.spec)).toContain('ragwatch:feedback_');
  });
});
