{{/*
Refusals at render time, each naming the values key to change: a values combination that would start pods whose
config ragwatch refuses, or that would put a credential into the ConfigMap.
*/}}
{{- define "ragwatch.validate" -}}
{{- $c := .Values.config | default dict }}
{{- $ingestKafka := (($c.ingest).kafka) | default dict }}
{{- $export := $c.evaluationExport | default dict }}
{{- if and (eq .Values.mode "split") (not (($c.transport).kafka).brokers) }}
{{- fail "mode split needs Kafka: set config.transport.kafka.brokers" }}
{{- end }}
{{- if and .Values.prober.enabled (not .Values.prober.suites) }}
{{- fail "prober.enabled needs prober.suites: the suite files (in prober.files or prober.existingConfigMap) to run" }}
{{- end }}
{{- /* Credentials belong in Secrets: the ConfigMap is readable by anyone who can read the namespace's ConfigMaps. */}}
{{- if (($ingestKafka.sasl).password) }}
{{- fail "config.ingest.kafka.sasl.password: the username and password come from the Secret ingest.kafka.sasl.secretName, never from values" }}
{{- end }}
{{- if or (($export.langfuse).publicKey) (($export.langfuse).secretKey) }}
{{- fail "config.evaluationExport.langfuse: the keys come from the Secret evaluationExport.langfuse.secretName, never from values" }}
{{- end }}
{{- if (($export.phoenix).apiKey) }}
{{- fail "config.evaluationExport.phoenix.apiKey: use the Secret evaluationExport.phoenix.apiKey.secretName" }}
{{- end }}
{{- range $name, $_ := (($export.otlp).headers) | default dict }}
{{- if regexMatch "(?i)(authorization|key|token|secret|password|auth)" $name }}
{{- fail (printf "config.evaluationExport.otlp.headers.%s looks like a credential: put the headers in the Secret evaluationExport.otlp.headers.secretName (`key=value,...`)" $name) }}
{{- end }}
{{- end }}
{{- if (((($c.transport).kafka).sasl).password) }}
{{- fail "config.transport.kafka.sasl.password: the username and password come from the Secret kafka.sasl.secretName, never from values" }}
{{- end }}
{{- if and .Values.kafka.sasl.secretName (not (((($c.transport).kafka).sasl).mechanism)) }}
{{- fail "kafka.sasl.secretName needs config.transport.kafka.sasl.mechanism (plain, scram-sha-256 or scram-sha-512): ragwatch refuses a username and password without it" }}
{{- end }}
{{- if and (((($c.transport).kafka).sasl).mechanism) (not .Values.kafka.sasl.secretName) }}
{{- fail "config.transport.kafka.sasl needs the Secret kafka.sasl.secretName (its username and password)" }}
{{- end }}
{{- if or (($c.server).bearerToken) (($c.server).apiToken) (($c.judge).apiKey) (($c.redaction).hmacKey) }}
{{- fail "config.server.bearerToken / server.apiToken / judge.apiKey / redaction.hmacKey are credentials: use ingest.bearerToken, ui.apiToken, judgeApiKey and pseudonymKey (Secrets)" }}
{{- end }}
{{- /* ingest.kafka (config.ingest.kafka): brokers somewhere, and its own SASL with its Secret. */}}
{{- if and $ingestKafka.enabled (not $ingestKafka.brokers) (not (($c.transport).kafka).brokers) }}
{{- fail "config.ingest.kafka.enabled needs brokers: config.ingest.kafka.brokers, or config.transport.kafka.brokers (the transport cluster, with the kafka.sasl Secret)" }}
{{- end }}
{{- if and $ingestKafka.sasl (not .Values.ingest.kafka.sasl.secretName) }}
{{- fail "config.ingest.kafka.sasl needs the Secret ingest.kafka.sasl.secretName (its username and password)" }}
{{- end }}
{{- if and .Values.ingest.kafka.sasl.secretName (not $ingestKafka.sasl) }}
{{- fail "ingest.kafka.sasl.secretName is set but config.ingest.kafka.sasl.mechanism is not (SASL to the config.ingest.kafka.brokers cluster; without own brokers ingest.kafka uses transport.kafka and the kafka.sasl Secret)" }}
{{- end }}
{{- /* Kafka TLS files from Secrets: for a cluster with TLS on, set by the chart (not also in the config). */}}
{{- $transportTls := ((($c.transport).kafka).tls) | default dict }}
{{- $ingestTls := $ingestKafka.tls | default dict }}
{{- if and (include "ragwatch.kafkaTlsMounted" .Values.kafka.tls) (not $transportTls.enabled) }}
{{- fail "kafka.tls (ca / clientCert Secrets) needs config.transport.kafka.tls.enabled: true (the files are for TLS to config.transport.kafka.brokers)" }}
{{- end }}
{{- if and .Values.kafka.tls.ca.secretName $transportTls.caFile }}
{{- fail (printf "config.transport.kafka.tls.caFile and kafka.tls.ca.secretName are both set: the chart sets caFile to the mounted Secret (%s/ca.crt); keep one" (include "ragwatch.kafkaTlsDir" "transport")) }}
{{- end }}
{{- if and .Values.kafka.tls.clientCert.secretName (or $transportTls.certFile $transportTls.keyFile) }}
{{- fail "config.transport.kafka.tls.certFile / keyFile and kafka.tls.clientCert.secretName are both set: the chart sets certFile and keyFile to the mounted Secret; keep one" }}
{{- end }}
{{- if include "ragwatch.kafkaTlsMounted" .Values.ingest.kafka.tls }}
{{- if not $ingestKafka.brokers }}
{{- fail "ingest.kafka.tls (ca / clientCert Secrets) is for config.ingest.kafka.brokers, which is unset: without brokers of its own ingest.kafka reads the transport cluster, with kafka.tls" }}
{{- end }}
{{- if not $ingestTls.enabled }}
{{- fail "ingest.kafka.tls (ca / clientCert Secrets) needs config.ingest.kafka.tls.enabled: true" }}
{{- end }}
{{- if and .Values.ingest.kafka.tls.ca.secretName $ingestTls.caFile }}
{{- fail (printf "config.ingest.kafka.tls.caFile and ingest.kafka.tls.ca.secretName are both set: the chart sets caFile to the mounted Secret (%s/ca.crt); keep one" (include "ragwatch.kafkaTlsDir" "ingest")) }}
{{- end }}
{{- if and .Values.ingest.kafka.tls.clientCert.secretName (or $ingestTls.certFile $ingestTls.keyFile) }}
{{- fail "config.ingest.kafka.tls.certFile / keyFile and ingest.kafka.tls.clientCert.secretName are both set: the chart sets certFile and keyFile to the mounted Secret; keep one" }}
{{- end }}
{{- end }}
{{- /* evaluationExport: Langfuse needs both keys. */}}
{{- if and (($export.langfuse).baseUrl) (not .Values.evaluationExport.langfuse.secretName) }}
{{- fail "config.evaluationExport.langfuse.baseUrl needs the Secret evaluationExport.langfuse.secretName (public and secret key)" }}
{{- end }}
{{- /* evaluators: one source. */}}
{{- if and $c.evaluators (include "ragwatch.evaluatorsMounted" .) }}
{{- fail "evaluators: list them in config.evaluators or give files in evaluators.files / evaluators.existingConfigMap, not both" }}
{{- end }}
{{- if and .Values.evaluators.files .Values.evaluators.existingConfigMap }}
{{- fail "evaluators: evaluators.files or evaluators.existingConfigMap, not both" }}
{{- end }}
{{- /* history on a claim: one writer. */}}
{{- if and .Values.store.persistence.enabled (ne .Values.mode "split") (gt (int .Values.allInOne.replicaCount) 1) }}
{{- fail "store.persistence keeps one pod's SQLite store: allInOne.replicaCount must be 1 (or use mode split, where the one slices pod keeps the history)" }}
{{- end }}
{{- end }}
