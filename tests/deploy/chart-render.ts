/**
 * Test helpers for the Helm chart: render it with the real helm binary and validate every
 * rendered object with kubernetes-models / @kubernetes-models/prometheus-operator.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
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
