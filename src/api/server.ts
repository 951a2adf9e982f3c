/**
 * `ragwatch/server`: `ragwatch start` as a function (ingest, pipeline, the consumers of score records
 * and the HTTP servers in one process) and the quality monitor its pages read.
 * @module
 */
export { startApp } from '../roles/start.ts';
export type { RunningApp } from '../roles/start.ts';
export { QualityMonitor } from '../roles/quality.ts';
export type { QualityMonitorOptions, QualityStatus } from '../roles/quality.ts';
export { instrumentsOptionsFromConfig } from '../telemetry/instruments.ts';
