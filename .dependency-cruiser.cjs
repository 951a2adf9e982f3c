/**
 * The one-way house of src/ (DESIGN §4, docs/architecture.md), checked by `npm run lint` and so by CI.
 * Every import points down this list:
 *
 *   top        src/cli.ts, src/commands/, src/index.ts, src/plugin.ts, src/api/ (the CLI, the public API: main and plugin entries, named subpaths)
 *   roles      src/roles/          one short file per process role; the only place that wires stages to consumers
 *   server     src/server/         hono apps and pages: read what the consumers hold, start nothing
 *   consumers  src/metrics/        metrics and alerting (imports no capability)
 *              src/store/ src/calibration/ src/weakness/ src/probes/ src/exams/ src/change/ src/slices/ src/slo/ src/conversations/ src/history/
 *              src/evaluation-export/ src/feedback/   capabilities, each on its own
 *   scorer     src/scorer/         consume → judge → emit to the record sinks the role registered
 *   stages     src/capture/ src/sampling/ src/transport/ src/judges/ src/assembly/ src/evaluators/ src/models/
 *   ground     src/triplet.ts src/metric-registry.ts src/errors.ts src/log.ts src/threads.ts src/suppress-tracing.ts
 *              src/config/ src/telemetry/ src/trail/   (wire contract, metric registry, errors, logging, configuration, self-metrics, the trail of recent traces)
 *
 * Type-only imports count: a type that points up is a dependency that points up.
 * Paths are relative to where depcruise runs (the repository root, or a test's fixture tree).
 */
const GROUND = '^src/(triplet|metric-registry|errors|log|threads|suppress-tracing)[.]ts$|^src/(config|telemetry|trail)/';
const STAGES = '^src/(capture|sampling|transport|judges|assembly|evaluators|models)/';
const SCORER = '^src/scorer/';
const METRICS = '^src/metrics/';
const CAPABILITIES = '^src/(store|calibration|weakness|probes|exams|change|slices|slo|conversations|history|evaluation-export|feedback)/';
const SERVER = '^src/server/';
const ROLES = '^src/roles/';
const TOP = '^src/(commands/|api/|cli[.]ts$|index[.]ts$|plugin[.]ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'every-room-has-a-layer',
      severity: 'error',
      comment: 'A new room of src/ (top-level folder or file) must be placed in a layer of this file before it imports anything, or none of the rules above would see it: add it to GROUND, STAGES, … at the top of .dependency-cruiser.cjs and to docs/architecture.md.',
      from: { path: '^src/', pathNot: [GROUND, STAGES, SCORER, METRICS, CAPABILITIES, SERVER, ROLES, TOP].join('|') },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Two modules that import each other (directly or round a loop) cannot be understood, tested or moved apart: extract what both need into a module below them.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'ground-imports-nothing-above',
      severity: 'error',
      comment: 'The ground (wire contract, errors, logging, config schema and loading, self-metrics) is what every floor stands on: it may not know a stage, the scorer, a consumer, the server or a role. Move the shared piece down (a capability file format loads in its own room).',
      from: { path: GROUND },
      to: { path: `${STAGES}|${SCORER}|${METRICS}|${CAPABILITIES}|${SERVER}|${ROLES}|${TOP}` },
    },
    {
      name: 'config-is-the-floor',
      severity: 'error',
      comment: 'config/ (the schema and loading of ragwatch.yaml) imports only the wire contract, the metric registry and the errors: self-metrics, threads and logging are built from it, not the other way round.',
      from: { path: '^src/config/' },
      to: { path: '^src/(telemetry/|log[.]ts$|threads[.]ts$|suppress-tracing[.]ts$)' },
    },
    {
      name: 'wire-contract-is-self-contained',
      severity: 'error',
      comment: 'triplet.ts and errors.ts are the contracts every process and version share: they import nothing else of ragwatch.',
      from: { path: '^src/(triplet|errors)[.]ts$' },
      to: { path: '^src/', pathNot: '^src/(triplet|errors)[.]ts$' },
    },
    {
      name: 'trail-stands-alone',
      severity: 'error',
      comment: 'trail/ (the ring of recent traces\' decisions, docs/answers.md) is fed by every stage through callbacks a role wires and read by the server: it imports nothing else of ragwatch, so any floor may record into it.',
      from: { path: '^src/trail/' },
      to: { path: '^src/', pathNot: '^src/trail/' },
    },
    {
      name: 'registry-reads-only-the-wire-contract',
      severity: 'error',
      comment: 'metric-registry.ts (metrics as data: the built-ins and the configured evaluators) is imported by config/ and every consumer: it may import the wire contract only. An evaluator reaches it as plain data (EvaluatorMetricSpec), never as a config type.',
      from: { path: '^src/metric-registry[.]ts$' },
      to: { path: '^src/', pathNot: '^src/triplet[.]ts$' },
    },
    {
      name: 'stages-import-no-consumer',
      severity: 'error',
      comment: 'A pipeline stage (capture, sampling, transport, judges, assembly) runs before the scorer: it may not import the scorer, a consumer of score records, the server, a role or the CLI. What it needs to report goes through telemetry/ (the ground); what a role adds is passed in as an option.',
      from: { path: STAGES },
      to: { path: `${SCORER}|${METRICS}|${CAPABILITIES}|${SERVER}|${ROLES}|${TOP}` },
    },
    {
      name: 'stages-are-independent',
      severity: 'error',
      comment: 'capture, sampling and transport are independent stages wired by the roles; only judges may use capture (its PII recognizers) and only assembly (split assembly across collectors) may use capture and transport.',
      from: { path: '^src/(capture|sampling|transport)/' },
      to: { path: STAGES, pathNot: '^src/$1/' },
    },
    {
      name: 'judges-use-only-capture',
      severity: 'error',
      comment: 'Judges grade triplets; of the other stages they use only capture (the redaction recognizers of the PII check).',
      from: { path: '^src/judges/' },
      to: { path: '^src/(sampling|transport|assembly)/' },
    },
    {
      name: 'assembly-does-not-judge',
      severity: 'error',
      comment: 'Split assembly turns span records into sampled triplets; judging happens in the scorer.',
      from: { path: '^src/assembly/' },
      to: { path: '^src/(judges|evaluators)/' },
    },
    {
      name: 'evaluators-stand-alone',
      severity: 'error',
      comment: 'evaluators/ (the configured check rules) runs in the scorer for every judge: it may not import a judge or another stage; the LLM evaluators are judged in judges/llm/ from the config alone.',
      from: { path: '^src/evaluators/' },
      to: { path: '^src/(capture|sampling|transport|judges|assembly)/' },
    },
    {
      name: 'scorer-imports-no-consumer',
      severity: 'error',
      comment: 'The scorer hands its records to the RecordSinks a role registered (scorer/record-sinks.ts); it may not know who consumes them.',
      from: { path: SCORER },
      to: { path: `${METRICS}|${CAPABILITIES}|${SERVER}|${ROLES}|${TOP}` },
    },
    {
      name: 'metrics-imports-no-capability',
      severity: 'error',
      comment: 'metrics/ (windows, thresholds, the alert evaluator, rule generation) is one consumer among others: what it needs of calibration or the weakness map comes in through options, and the roles compose the rest (roles/quality.ts, roles/rules.ts).',
      from: { path: METRICS },
      to: { path: `${CAPABILITIES}|${SERVER}|${ROLES}|${TOP}` },
    },
    {
      name: 'store-knows-no-capability',
      severity: 'error',
      comment: 'The embedded store keeps what the capabilities give it (rows, JSON bodies in the shape their owner chose); it may not import calibration, the weakness map, probes, exams or metrics.',
      from: { path: '^src/store/' },
      to: { path: `${METRICS}|^src/(calibration|weakness|probes|exams|change|slices|slo|conversations|history|evaluation-export|feedback)/` },
    },
    {
      name: 'capabilities-are-independent',
      severity: 'error',
      comment: 'Calibration, the weakness map, the probes, the change alerts and the SLOs are consumers of their own: each may use metrics/ and store/ below it, never another capability (a new capability touches its own room and one role line).',
      from: { path: '^src/(calibration|weakness|probes|change|slices|slo|conversations|history|evaluation-export|feedback)/' },
      to: { path: '^src/(calibration|weakness|probes|exams|change|slices|slo|conversations|history|evaluation-export|feedback)/', pathNot: '^src/$1/' },
    },
    {
      name: 'exams-use-probes-and-weakness-only',
      severity: 'error',
      comment: 'Exams are generated from probe facts and classified with the weakness map’s question types; they use neither calibration nor the change alerts nor the SLOs.',
      from: { path: '^src/exams/' },
      to: { path: '^src/(calibration|change|slices|slo|conversations|evaluation-export|feedback)/' },
    },
    {
      name: 'consumers-import-no-server-or-role',
      severity: 'error',
      comment: 'A consumer of score records is wired by a role and read by the server: it may not import either, nor the CLI. Starting an HTTP server or a process belongs to roles/.',
      from: { path: CAPABILITIES },
      to: { path: `${SERVER}|${ROLES}|${TOP}` },
    },
    {
      name: 'server-starts-nothing',
      severity: 'error',
      comment: 'server/ holds hono apps and pages that read what the consumers hold; which servers a process listens on, and with what, is a role’s business (roles/).',
      from: { path: SERVER },
      to: { path: `${ROLES}|${TOP}` },
    },
    {
      name: 'roles-are-below-the-cli',
      severity: 'error',
      comment: 'Roles are called by the CLI (commands/) and the public API (index.ts), never the other way round.',
      from: { path: ROLES },
      to: { path: TOP },
    },
    {
      name: 'no-dev-dependencies-at-run-time',
      severity: 'error',
      comment: 'src/ ships to users without devDependencies: a value import of one breaks `npm install ragwatch` (type-only imports are erased and fine).',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only', 'npm-peer'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/capture/otlp/proto/' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    reporterOptions: {
      // docs/architecture.svg (`npm run docs:architecture`): one box per room of src/, no packages.
      archi: {
        collapsePattern: '^src/[^/]+/|^src/[^/]+[.]ts$',
        filters: { includeOnly: { path: '^src/' } },
        // Top to bottom as the imports point (CLI on top, ground at the bottom), a colour per layer.
        theme: {
          graph: { rankdir: 'TB', splines: 'true', ranksep: '0.6', fontname: 'Helvetica' },
          node: { fontname: 'Helvetica', style: 'filled,rounded' },
          edge: { color: '#00000055' },
          modules: [
            { criteria: { source: GROUND }, attributes: { fillcolor: '#e8e8e8' } },
            { criteria: { source: STAGES }, attributes: { fillcolor: '#cfe8ff' } },
            { criteria: { source: SCORER }, attributes: { fillcolor: '#ffe9b3' } },
            { criteria: { source: `${METRICS}|${CAPABILITIES}` }, attributes: { fillcolor: '#d6f5d6' } },
            { criteria: { source: SERVER }, attributes: { fillcolor: '#f5d6f0' } },
            { criteria: { source: ROLES }, attributes: { fillcolor: '#ffd6cc' } },
            { criteria: { source: TOP }, attributes: { fillcolor: '#ffffff' } },
          ],
        },
      },
    },
  },
};
