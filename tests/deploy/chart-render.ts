/**
 * Test helpers for the Helm chart: render it with the real helm binary and validate every
 * rendered object with kubernetes-models / @kubernetes-models/prometheus-operator.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT, runHelm } from '../../scripts/helm.ts';

/** The chart directory. */
export const CHART = join(REPO_ROOT, 'helm', 'ragwatch');
/** Example values files shipped next to the chart. */
export const EXAMPLES_DIR = join(REPO_ROOT, 'helm', 'examples');

/** Example values files, absolute paths. */
export function exampleValuesFiles(): string[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(EXAMPLES_DIR, f));
}

/** A rendered Kubernetes object (loosely typed; validated separately). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

/** Renders the chart; throws with helm's stderr when helm fails. */
export function helmTemplate(args: readonly string[]): K8sObject[] {
  const res = runHelm(['template', 'rw', CHART, '--namespace', 'ragwatch', ...args]);
  if (res.status !== 0) throw new Error(`helm template ${args.join(' ')} failed:\n${res.stderr}`);
  return parseAllDocuments(res.stdout)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`rendered YAML does not parse: ${d.errors[0]!.message}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

type Validator = (obj: K8sObject) => void;
const VALIDATORS: Record<string, Validator> = {
  'apps/v1/Deployment': (o) => new Deployment(o as never).validate(),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o as never).validate(),
  'networking.k8s.io/v1/NetworkPolicy': (o) => new NetworkPolicy(o as never).validate(),
  'v1/ConfigMap': (o) => new ConfigMap(o as never).validate(),
  'v1/PersistentVolumeClaim': (o) => new PersistentVolumeClaim(o as never).validate(),
  'v1/Secret': (o) => new Secret(o as never).validate(),
  'v1/Service': (o) => new Service(o as never).validate(),
  'v1/ServiceAccount': (o) => new ServiceAccount(o as never).validate(),
  'monitoring.coreos.com/v1/ServiceMonitor': (o) => new ServiceMonitor(o as never).validate(),
  'monitoring.coreos.com/v1/PrometheusRule': (o) => new PrometheusRule(o as never).validate(),
};

/** Validates one object against its schema; throws for invalid objects and for kinds without a model. */
export function validateObject(obj: K8sObject): void {
  const key = `${obj.apiVersion}/${obj.kind}`;
  const validate = VALIDATORS[key];
  if (!validate) throw new Error(`no kubernetes-models validator for ${key} (${obj.metadata?.name})`);
  validate(obj);
}

/** All objects of one kind. */
export function ofKind<T = K8sObject>(objects: readonly K8sObject[], kind: string): T[] {
  return objects.filter((o) => o.kind === kind) as T[];
}

/** True when every key/value of `selector` is among `labels`. */
export function selects(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** One container env entry as the chart renders it. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
/** Keys of a Secret projected as files (`path` under the mount; all keys by their names when absent). */
interface SecretProjection {
  items?: Array<{ key: string; path: string }>;
}
/** A pod volume as the chart renders it. */
export interface PodVolume {
  name: string;
  configMap?: { name: string };
  secret?: SecretProjection & { secretName: string };
  projected?: { sources: Array<{ secret?: SecretProjection & { name: string } }> };
}
interface PodTemplate {
  containers: Array<{ args?: string[]; env?: EnvVar[]; volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }> }>;
  volumes?: PodVolume[];
}

/** The Secrets a volume projects: `[secret name, projection]` for a secret volume or each secret source of a projected one. */
export function secretsOfVolume(volume: PodVolume | undefined): Array<[string, SecretProjection]> {
  if (volume?.secret) return [[volume.secret.secretName, volume.secret]];
  return (volume?.projected?.sources ?? []).flatMap((s) => (s.secret ? [[s.secret.name, s.secret] as [string, SecretProjection]] : []));
}
/** A rendered Deployment with the parts the pod helpers read. */
export type DeploymentObject = K8sObject & { spec: { template: { spec: PodTemplate } } };

/** The Deployment running `ragwatch <command>`. */
export function deploymentOf(objects: readonly K8sObject[], command: string): DeploymentObject {
  const found = ofKind<DeploymentObject>(objects, 'Deployment').find((d) => d.spec.template.spec.containers[0]!.args?.[0] === command);
  if (!found) throw new Error(`no Deployment runs ragwatch ${command}`);
  return found;
}

/** Secret name → key → value: the Secrets a test pretends exist in the namespace. */
export type FakeSecrets = Record<string, Record<string, string>>;

/**
 * The pod of `deployment` laid out as the kubelet would lay it out, under `dir`: each ConfigMap volume's
 * files written at `dir` + its mountPath (from the rendered ConfigMaps; a ConfigMap not rendered must be
 * in `extraConfigMaps`), each Secret volume's (or projected Secret source's) keys from `secrets` (one not
 * there throws), and the container environment with every `secretKeyRef` resolved from `secrets`
 * (a reference to a Secret or key not there throws). Paths under the mounts, in the environment and in
 * the mounted files, are moved under `dir`, so ragwatch reads the pod's files here.
 */
export function podEnvironment(objects: readonly K8sObject[], deployment: DeploymentObject, secrets: FakeSecrets, dir: string, extraConfigMaps: Record<string, Record<string, string>> = {}): Record<string, string> {
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0]!;
  const configMaps = new Map(ofKind<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap').map((c) => [c.metadata.name, c.data]));
  for (const [name, data] of Object.entries(extraConfigMaps)) configMaps.set(name, data);
  const mounts = (container.volumeMounts ?? []).map((m) => ({ ...m, volume: pod.volumes?.find((v) => v.name === m.name) }));
  // Longest first: /etc/ragwatch-evaluators before /etc/ragwatch.
  const paths = mounts.map((m) => m.mountPath).sort((a, b) => b.length - a.length);
  const escaped = paths.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const relocate = (text: string) => (paths.length === 0 ? text : text.replace(new RegExp(`(?<![\\w/.-])(${escaped.join('|')})(?=[/\\s"']|$)`, 'gm'), (m) => join(dir, m)));
  for (const m of mounts) {
    for (const [name, projection] of secretsOfVolume(m.volume)) {
      const data = secrets[name];
      if (!data) throw new Error(`${deployment.metadata.name} mounts Secret ${name}, which the test does not have`);
      const at = join(dir, m.mountPath);
      mkdirSync(at, { recursive: true });
      for (const { key, path } of projection.items ?? Object.keys(data).map((k) => ({ key: k, path: k }))) {
        if (data[key] === undefined) throw new Error(`${deployment.metadata.name} mounts key ${key} of Secret ${name}, which the test does not have`);
        writeFileSync(join(at, path), data[key]);
      }
    }
    if (!m.volume?.configMap) continue;
    const data = configMaps.get(m.volume.configMap.name);
    if (!data) throw new Error(`${deployment.metadata.name} mounts ConfigMap ${m.volume.configMap.name}, which is neither rendered nor given`);
    const at = join(dir, m.mountPath);
    mkdirSync(at, { recursive: true });
    for (const [file, content] of Object.entries(data)) writeFileSync(join(at, file), relocate(content));
  }
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      const value = secrets[ref.name]?.[ref.key];
      if (value === undefined) throw new Error(`${deployment.metadata.name}: ${e.name} references Secret ${ref.name} key ${ref.key}, which the test does not have`);
      env[e.name] = value;
    } else env[e.name] = relocate(e.value ?? '');
  }
  return env;
}

/**
 * Fake values for every Secret the rendered Deployments reference or mount: a Secret the chart renders
 * keeps its own data; any other key gets a distinct value of 32 characters (the OTLP headers variable a
 * `key=value` list; a mounted key PEM-looking text), so a test can tell which Secret a loaded config key
 * came from.
 */
export function fakeSecretsFor(objects: readonly K8sObject[]): FakeSecrets {
  const out: FakeSecrets = {};
  for (const s of ofKind<K8sObject & { data?: Record<string, string> }>(objects, 'Secret')) {
    out[s.metadata.name] = Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  }
  for (const d of ofKind<DeploymentObject>(objects, 'Deployment')) {
    // Mounted Secrets (Kafka TLS files): PEM-looking text naming the Secret and key.
    for (const volume of d.spec.template.spec.volumes ?? []) {
      for (const [name, projection] of secretsOfVolume(volume)) {
        for (const { key } of projection.items ?? []) (out[name] ??= {})[key] ??= `-----BEGIN ${key.endsWith('key') ? 'PRIVATE KEY' : 'CERTIFICATE'}-----\n${name}.${key}\n-----END-----\n`;
      }
    }
    for (const e of d.spec.template.spec.containers[0]!.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef;
      if (!ref || out[ref.name]?.[ref.key] !== undefined) continue;
      const fake = `${ref.name}.${ref.key}`.padEnd(32, '0');
      (out[ref.name] ??= {})[ref.key] = e.name.endsWith('_HEADERS') ? `Authorization=Bearer%20${fake}` : fake;
    }
  }
  return out;
}
