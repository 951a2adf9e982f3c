/**
 * `ragwatch/rules`: the Prometheus alerting rules generated from a configuration (what `ragwatch
 * rules` prints), alert names, and THELMA's diagnosis of the likely component.
 * @module
 */
export { alertName } from '../metrics/rules.ts';
export type { RuleGroup } from '../metrics/rules.ts';
export { generateRules } from '../roles/rules.ts';
export { diagnose, DIAGNOSIS_PATTERNS, DIAGNOSIS_COMPONENTS } from '../metrics/diagnosis.ts';
export type { Diagnosis, DiagnosisComponent, DiagnosisPattern } from '../metrics/diagnosis.ts';
