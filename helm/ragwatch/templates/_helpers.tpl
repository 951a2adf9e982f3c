{{/* Chart name, truncated to 63 characters. */}}
{{- define "ragwatch.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name (release-name logic of the `helm create` scaffold). */}}
{{- define "ragwatch.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "ragwatch.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Common labels. */}}
{{- define "ragwatch.labels" -}}
helm.sh/chart: {{ include "ragwatch.chart" . }}
{{ include "ragwatch.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: ragwatch
{{- end }}

{{/* Selector labels shared by every ragwatch object of the release. */}}
{{- define "ragwatch.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ragwatch.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "ragwatch.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "ragwatch.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Roles deployed in the current mode: CLI command, whether they serve OTLP, the UI, keep a store, run as one replica. */}}
{{- define "ragwatch.roles" -}}
{{- if eq .Values.mode "split" }}
- {name: collector, command: collector, otlp: true, ui: false, data: false, single: false, values: collector}
- {name: assembler, command: assembler, otlp: false, ui: false, data: false, single: false, values: assembler}
- {name: scorer, command: scorer, otlp: false, ui: true, data: true, single: false, values: scorer}
- {name: slices, command: slices, otlp: false, ui: false, data: true, single: true, values: slices}
{{- if .Values.prober.enabled }}
- {name: prober, command: prober, otlp: false, ui: false, data: false, single: true, values: prober}
{{- end }}
{{- else }}
- {name: all-in-one, command: start, otlp: true, ui: true, data: true, single: false, values: allInOne}
{{- end }}
{{- end }}

{{/* True when the cluster serves the prometheus-operator CRDs (or --api-versions says so). */}}
{{- define "ragwatch.hasMonitoringCRDs" -}}
{{- if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" }}true{{ end }}
{{- end }}

{{/* Name of the ConfigMap holding the probe suites. */}}
{{- define "ragwatch.probesConfigMap" -}}
{{- .Values.prober.existingConfigMap | default (printf "%s-probes" (include "ragwatch.fullname" .)) }}
{{- end }}

{{/* Name of the Secret holding the pseudonym key (redaction.hmacKey). */}}
{{- define "ragwatch.pseudonymKeySecret" -}}
{{- .Values.pseudonymKey.existingSecret | default (printf "%s-pseudonym-key" (include "ragwatch.fullname" .)) }}
{{- end }}
