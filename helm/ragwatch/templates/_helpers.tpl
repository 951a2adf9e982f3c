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

{{/*
Roles deployed in the current mode: CLI command, whether they ingest (OTLP servers, feedback, config.ingest.kafka),
serve the UI, keep a store, keep the history (the persistent volume's pod), export evaluations
(config.evaluationExport), run as one replica.
*/}}
{{- define "ragwatch.roles" -}}
{{- if eq .Values.mode "split" }}
- {name: collector, command: collector, otlp: true, ui: false, data: false, history: false, export: false, single: false, values: collector}
- {name: assembler, command: assembler, otlp: false, ui: false, data: false, history: false, export: false, single: false, values: assembler}
- {name: scorer, command: scorer, otlp: false, ui: true, data: true, history: false, export: true, single: false, values: scorer}
- {name: slices, command: slices, otlp: false, ui: false, data: true, history: true, export: false, single: true, values: slices}
{{- if .Values.prober.enabled }}
- {name: prober, command: prober, otlp: false, ui: false, data: false, history: false, export: false, single: true, values: prober}
{{- end }}
{{- else }}
- {name: all-in-one, command: start, otlp: true, ui: true, data: true, history: true, export: true, single: false, values: allInOne}
{{- end }}
{{- end }}

{{/* True when evaluator files are mounted at /etc/ragwatch-evaluators (evaluators.files or evaluators.existingConfigMap). */}}
{{- define "ragwatch.evaluatorsMounted" -}}
{{- if or .Values.evaluators.files .Values.evaluators.existingConfigMap }}true{{ end }}
{{- end }}

{{/* Name of the ConfigMap holding the evaluator files. */}}
{{- define "ragwatch.evaluatorsConfigMap" -}}
{{- .Values.evaluators.existingConfigMap | default (printf "%s-evaluators" (include "ragwatch.fullname" .)) }}
{{- end }}

{{/*
The ragwatch.yaml of a role ({root, role}; role empty = the whole config): values.config, with `evaluators:` naming
the mounted directory; in split mode a role gets no section it does not run whose credentials it is not given
(config.ingest: only the collectors; config.evaluationExport: only the scorers), so a Secret reaches only the pods
that use it and every pod's config still loads.
*/}}
{{- define "ragwatch.config" -}}
{{- $config := deepCopy (.root.Values.config | default dict) }}
{{- if include "ragwatch.evaluatorsMounted" .root }}
{{- $_ := set $config "evaluators" "/etc/ragwatch-evaluators" }}
{{- end }}
{{- with .role }}
{{- if not .otlp }}{{ $_ := unset $config "ingest" }}{{ end }}
{{- if not .export }}{{ $_ := unset $config "evaluationExport" }}{{ end }}
{{- end }}
{{- include "ragwatch.setKafkaTlsFiles" (dict "tls" (dig "transport" "kafka" "tls" dict $config) "values" .root.Values.kafka.tls "dir" (include "ragwatch.kafkaTlsDir" "transport")) }}
{{- include "ragwatch.setKafkaTlsFiles" (dict "tls" (dig "ingest" "kafka" "tls" dict $config) "values" .root.Values.ingest.kafka.tls "dir" (include "ragwatch.kafkaTlsDir" "ingest")) }}
{{- toYaml $config }}
{{- end }}

{{/* Where a Kafka cluster's TLS Secrets are mounted ("transport": every pod; "ingest": config.ingest.kafka's own cluster, the ingesting pods). */}}
{{- define "ragwatch.kafkaTlsDir" -}}
{{- if eq . "ingest" }}/etc/ragwatch-ingest-kafka-tls{{ else }}/etc/ragwatch-kafka-tls{{ end }}
{{- end }}

{{/* True when a Kafka TLS values object (kafka.tls, ingest.kafka.tls) names a Secret. */}}
{{- define "ragwatch.kafkaTlsMounted" -}}
{{- if or ((.ca).secretName) ((.clientCert).secretName) }}true{{ end }}
{{- end }}

{{/* The projected volume sources of a Kafka TLS values object: its Secrets' keys as ca.crt, tls.crt and tls.key. */}}
{{- define "ragwatch.kafkaTlsSources" -}}
{{- with (.ca).secretName }}
- secret:
    name: {{ . | quote }}
    items:
      - { key: {{ $.ca.key | quote }}, path: ca.crt }
{{- end }}
{{- with (.clientCert).secretName }}
- secret:
    name: {{ . | quote }}
    items:
      - { key: {{ $.clientCert.certKey | quote }}, path: tls.crt }
      - { key: {{ $.clientCert.keyKey | quote }}, path: tls.key }
{{- end }}
{{- end }}

{{/* Points a config `tls` mapping ({tls, values, dir}) at the mounted files of the Secrets its values name. */}}
{{- define "ragwatch.setKafkaTlsFiles" -}}
{{- if (.values.ca).secretName }}{{ $_ := set .tls "caFile" (printf "%s/ca.crt" .dir) }}{{ end }}
{{- if (.values.clientCert).secretName }}{{ $_ := set .tls "certFile" (printf "%s/tls.crt" .dir) }}{{ $_ := set .tls "keyFile" (printf "%s/tls.key" .dir) }}{{ end }}
{{- end }}

{{/* The file under /etc/ragwatch a role reads ({root, role}): ragwatch.yaml, or <role>.yaml when its config differs. */}}
{{- define "ragwatch.configFile" -}}
{{- if eq (include "ragwatch.config" .) (include "ragwatch.config" (dict "root" .root)) }}ragwatch.yaml{{ else }}{{ .role.name }}.yaml{{ end }}
{{- end }}

{{/* Name of the PersistentVolumeClaim of the history pod's store. */}}
{{- define "ragwatch.dataClaim" -}}
{{- .Values.store.persistence.existingClaim | default (printf "%s-data" (include "ragwatch.fullname" .)) }}
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
