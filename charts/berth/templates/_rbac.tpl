{{/*
RBAC rules, one place each; test/chart/chart.test.ts holds the same table and fails when they drift.
*/}}

{{/*
The operator, in every watched namespace: it reconciles AgentDeployments (status, finalizer) into Deployments (API,
queue workers, Redis), a Postgres StatefulSet with its Secret, Services and HPAs; reads pods for status; records
Events; and in the finalizer deletes the Postgres PVCs (label berth.dev/deployment-id).
*/}}
{{- define "berth.operator.rules" -}}
- apiGroups: ["berth.dev"]
  resources: ["agentdeployments"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["berth.dev"]
  resources: ["agentdeployments/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["berth.dev"]
  resources: ["agentdeployments/finalizers"]
  verbs: ["update"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["services", "secrets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "delete", "deletecollection"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/* Leader election, in the release namespace only: read the Lease, create it, renew or take it over (PUT). */}}
{{- define "berth.operator.leaderElectionRules" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/*
The control plane's Kubernetes listener, in every target namespace: deployment env Secrets, the ConfigMap with a
build's generated Dockerfile, Kaniko build Jobs and their pods' logs, the AgentDeployments themselves (and their
status, read back), and Events.
*/}}
{{- define "berth.controlPlane.rules" -}}
- apiGroups: ["berth.dev"]
  resources: ["agentdeployments"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: ["berth.dev"]
  resources: ["agentdeployments/status"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["secrets", "configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods/log"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}
