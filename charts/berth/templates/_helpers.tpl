{{/*
Names. Object names are DNS-1123 labels (at most 63 characters). The StatefulSet name stays within 52 so that its
pods' controller-revision-hash label fits.
*/}}
{{- define "berth.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "berth.fullname" -}}
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

{{- define "berth.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "berth.operator.fullname" -}}
{{- printf "%s-operator" (include "berth.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "berth.controlPlane.fullname" -}}
{{- printf "%s-control-plane" (include "berth.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "berth.postgresql.fullname" -}}
{{- printf "%s-postgresql" (include "berth.fullname" .) | trunc 52 | trimSuffix "-" }}
{{- end }}

{{- define "berth.postgresql.headless" -}}
{{- printf "%s-hl" (include "berth.postgresql.fullname" .) }}
{{- end }}

{{- define "berth.operator.serviceAccountName" -}}
{{- if .Values.operator.serviceAccount.create }}
{{- default (include "berth.operator.fullname" .) .Values.operator.serviceAccount.name }}
{{- else }}
{{- required "operator.serviceAccount.name is required when operator.serviceAccount.create is false" .Values.operator.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "berth.controlPlane.serviceAccountName" -}}
{{- if .Values.controlPlane.serviceAccount.create }}
{{- default (include "berth.controlPlane.fullname" .) .Values.controlPlane.serviceAccount.name }}
{{- else }}
{{- required "controlPlane.serviceAccount.name is required when controlPlane.serviceAccount.create is false" .Values.controlPlane.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "berth.operator.leaseName" -}}
{{- default (include "berth.operator.fullname" .) .Values.operator.leaderElection.leaseName }}
{{- end }}

{{/*
Labels. Call with (dict "ctx" $ "component" "operator").
*/}}
{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: {{ include "berth.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "berth.labels" -}}
helm.sh/chart: {{ include "berth.chart" .ctx }}
{{ include "berth.selectorLabels" . }}
app.kubernetes.io/version: {{ (.ctx.Values.image.tag | default .ctx.Chart.AppVersion) | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: berth
{{- with .ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
metadata.annotations with the common annotations and extra ones, nothing when both are empty. Call with
(dict "ctx" $ "extra" $map "indent" N) right after the preceding line, without a pipe: {{- include … }}.
*/}}
{{- define "berth.annotations" -}}
{{- $all := merge (dict) (.extra | default (dict)) (.ctx.Values.commonAnnotations | default (dict)) }}
{{- with $all }}
{{- printf "annotations:\n%s" (toYaml . | indent 2) | nindent ($.indent | default 2 | int) }}
{{- end }}
{{- end }}

{{/*
The Berth image reference.
*/}}
{{- define "berth.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion | toString) }}
{{- end }}
{{- end }}

{{- define "berth.imagePullSecrets" -}}
{{- with .Values.imagePullSecrets }}
{{- printf "imagePullSecrets:\n%s" (toYaml . | indent 2) | nindent 6 }}
{{- end }}
{{- end }}

{{/*
Control plane settings.
*/}}
{{- define "berth.controlPlane.publicUrl" -}}
{{- if .Values.controlPlane.publicUrl }}
{{- .Values.controlPlane.publicUrl }}
{{- else }}
{{- printf "http://%s.%s.svc.%s:%v" (include "berth.controlPlane.fullname" .) .Release.Namespace .Values.clusterDomain .Values.controlPlane.service.port }}
{{- end }}
{{- end }}

{{- define "berth.controlPlane.defaultNamespace" -}}
{{- $l := .Values.controlPlane.k8sListener }}
{{- if $l.defaultNamespace }}
{{- $l.defaultNamespace }}
{{- else if $l.namespaces }}
{{- first $l.namespaces }}
{{- else if and .Values.operator.enabled .Values.operator.watchNamespaces }}
{{- first .Values.operator.watchNamespaces }}
{{- else }}
{{- .Release.Namespace }}
{{- end }}
{{- end }}

{{/* Whether the bundled Postgres runs: "true" or "". */}}
{{- define "berth.postgresql.enabled" -}}
{{- if and .Values.controlPlane.enabled .Values.postgresql.enabled }}true{{ end }}
{{- end }}

{{/* Whether the chart's control-plane Secret is needed: "true" or "". */}}
{{- define "berth.controlPlane.ownSecret" -}}
{{- $cp := .Values.controlPlane }}
{{- if or (not $cp.apiKey.existingSecret) (not $cp.secretsKey.existingSecret) $cp.database.externalUri }}true{{ end }}
{{- end }}

{{/*
Checks that fail the render with a message saying what to change.
*/}}
{{- define "berth.validate" -}}
{{- $cp := .Values.controlPlane }}
{{- $op := .Values.operator }}
{{- if $cp.enabled }}
{{- $sources := 0 }}
{{- if .Values.postgresql.enabled }}{{ $sources = add1 $sources }}{{ end }}
{{- if $cp.database.externalUri }}{{ $sources = add1 $sources }}{{ end }}
{{- if $cp.database.existingSecret }}{{ $sources = add1 $sources }}{{ end }}
{{- if eq (int $sources) 0 }}
{{- fail "berth: the control plane needs a PostgreSQL database: set postgresql.enabled=true (bundled), controlPlane.database.externalUri, or controlPlane.database.existingSecret (with controlPlane.database.existingSecretKey)" }}
{{- end }}
{{- if gt (int $sources) 1 }}
{{- fail "berth: choose one database for the control plane: postgresql.enabled=true, controlPlane.database.externalUri or controlPlane.database.existingSecret (set postgresql.enabled=false to use an external one)" }}
{{- end }}
{{- if and .Values.postgresql.enabled .Values.postgresql.auth.password }}
{{- if not (regexMatch "^[A-Za-z0-9._~-]+$" (toString .Values.postgresql.auth.password)) }}
{{- fail "berth: postgresql.auth.password may only contain letters, digits and ._~- (it goes into a URI); leave it empty to generate one" }}
{{- end }}
{{- end }}
{{- if not (has $cp.authMode (list "required" "loopback-open")) }}
{{- fail (printf "berth: controlPlane.authMode must be required or loopback-open, not %q" (toString $cp.authMode)) }}
{{- end }}
{{- if and $cp.k8sListener.enabled $cp.k8sListener.namespaces $cp.k8sListener.defaultNamespace }}
{{- if not (has $cp.k8sListener.defaultNamespace $cp.k8sListener.namespaces) }}
{{- fail (printf "berth: controlPlane.k8sListener.defaultNamespace %q is not in controlPlane.k8sListener.namespaces, so the control plane could not write there" $cp.k8sListener.defaultNamespace) }}
{{- end }}
{{- end }}
{{- if and $cp.k8sListener.enabled $op.enabled $op.watchNamespaces }}
{{- range (append $cp.k8sListener.namespaces (include "berth.controlPlane.defaultNamespace" $)) | uniq }}
{{- if not (has . $op.watchNamespaces) }}
{{- fail (printf "berth: the control plane writes AgentDeployments to namespace %q, which operator.watchNamespaces does not include: nothing would reconcile them" .) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if $op.enabled }}
{{- if and (gt (int $op.replicas) 1) (not $op.leaderElection.enabled) }}
{{- fail "berth: operator.replicas > 1 needs operator.leaderElection.enabled=true (two active operators would fight over the same objects)" }}
{{- end }}
{{- end }}
{{- end }}
