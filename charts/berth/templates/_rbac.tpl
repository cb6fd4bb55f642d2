{{/*
RBAC rules, one place each; test/chart/chart.test.ts holds the same table and fails when they drift.
*/}}

{{/*
The operator, in every watched namespace, exactly what it uses (test/operator/real-apiserver-chart.test.ts asks the
real authorizer, and the end-to-end suite runs the operator as this account): informers list and watch
AgentDeployments and the kinds it owns; server-side apply creates and updates children (patch; create for the first
apply); the finalizer and status are JSON/merge patches; a missing Secret is read once (get); HPAs it no longer
wants are deleted; the finalizer deletes the Postgres claims by label (deletecollection); Events record
transitions. Children are deleted by garbage collection, not by the operator. `agentdeployments/finalizers` update
lets it set blockOwnerDeletion on children where the OwnerReferencesPermissionEnforcement admission plugin is on.
*/}}
{{- define "berth.operator.rules" -}}
- apiGroups: ["berth.dev"]
  resources: ["agentdeployments"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["berth.dev"]
  resources: ["agentdeployments/status"]
  verbs: ["patch"]
- apiGroups: ["berth.dev"]
  resources: ["agentdeployments/finalizers"]
  verbs: ["update"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["get", "list", "watch", "create", "patch"]
- apiGroups: [""]
  resources: ["services", "secrets"]
  verbs: ["get", "list", "watch", "create", "patch"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["deletecollection"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
{{- end }}

{{/* Leader election, in the release namespace only: read the Lease, create it, renew or take it over (PUT). */}}
{{- define "berth.operator.leaderElectionRules" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
{{- end }}

{{/*
The control plane's Kubernetes listener, in every target namespace, exactly what it uses (checked like the
operator's): the AgentDeployments it applies (patch; create for the first apply), deletes and watches for their
status; deployment env Secrets and build ConfigMaps (applied, read, listed and deleted at teardown); Kaniko build Jobs
(created, read, listed, deleted); the build pods listed to read their logs.
*/}}
{{- define "berth.controlPlane.rules" -}}
- apiGroups: ["berth.dev"]
  resources: ["agentdeployments"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: [""]
  resources: ["secrets", "configmaps"]
  verbs: ["get", "list", "create", "patch", "delete"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "create", "delete"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list"]
- apiGroups: [""]
  resources: ["pods/log"]
  verbs: ["get"]
{{- end }}
