#!/usr/bin/env bash
# A real Kubernetes control plane for the test suite, without containers: etcd from Debian's `etcd-server` and
# kube-apiserver + kube-controller-manager built from Debian's `kubernetes` source package (upstream 1.20.x).
#
#   scripts/kube-control-plane.sh build            build (or reuse) the binaries; prints their directory
#   scripts/kube-control-plane.sh start [DIR]      start etcd + kube-apiserver + kube-controller-manager in DIR
#                                                  (default ~/.cache/berth/kube/run); prints the env to use it
#   scripts/kube-control-plane.sh stop [DIR]       stop them and delete DIR's state (idempotent)
#   scripts/kube-control-plane.sh env [DIR]        print the env of a running control plane (KUBECONFIG=...)
#   scripts/kube-control-plane.sh kubeconfig DIR USER [GROUP...]
#                                                  issue a client certificate for USER (groups as O=) signed by the
#                                                  cluster CA and print the path of a kubeconfig for it
#   scripts/kube-control-plane.sh restart-apiserver DIR   restart kube-apiserver in place (breaks every watch)
#   scripts/kube-control-plane.sh bin-dir          print the binaries' directory if they are built (exit 1 if not)
#
# Binaries are cached under ${BERTH_KUBE_CACHE:-~/.cache/berth/kube} (outside the clone) keyed by the source package
# version, so only a new machine pays the build (~5-10 minutes on 2 cores). Everything listens on 127.0.0.1 on free
# ports; TLS everywhere, RBAC + Node authorization on, the default admission plugins.
#
# Why build from source: Debian ships no kube-apiserver binary package, and this machine reaches only Debian's
# packages and npm. The vendored github.com/modern-go/reflect2 1.0.1 crashes under Go >= 1.18 (`fatal error: fault`
# in mapiterinit), so it is replaced by Debian's golang-github-modern-go-reflect2-dev (1.0.2) before building.
set -euo pipefail

CACHE=${BERTH_KUBE_CACHE:-$HOME/.cache/berth/kube}
SRC_SOURCES=/etc/apt/sources.list.d/berth-deb-src.sources

log() { echo "[kube-control-plane] $*" >&2; }
die() { log "error: $*"; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p"); done
  [ ${#missing[@]} = 0 ] && return 0
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
    { as_root apt-get update >/dev/null && as_root apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
}

ensure_deb_src() {
  if apt-cache showsrc kubernetes >/dev/null 2>&1 && [ -n "$(apt-cache showsrc kubernetes 2>/dev/null)" ]; then return 0; fi
  log "adding a deb-src entry ($SRC_SOURCES) for apt-get source"
  local uris suites
  uris=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  suites=$(awk '/^Suites:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$uris" ] || uris=http://deb.debian.org/debian
  [ -n "$suites" ] || suites=$(. /etc/os-release && echo "$VERSION_CODENAME")
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$uris" "$suites" | as_root tee "$SRC_SOURCES" >/dev/null
  as_root apt-get update >/dev/null
}

# Version of the source package the binaries are built from (the cache key).
src_version() { apt-cache showsrc kubernetes 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V | tail -n1; }

bin_dir_of() { echo "$CACHE/bin/$1"; }

cached_bin_dir() {
  local d
  for d in "$CACHE"/bin/*/; do
    [ -x "$d/kube-apiserver" ] && [ -x "$d/kube-controller-manager" ] && [ -f "$d/.complete" ] && { echo "${d%/}"; return 0; }
    # an API server without controllers (BERTH_KUBE_CONTROLLERS=0) needs only its own binary
    [ "${BERTH_KUBE_CONTROLLERS:-1}" = 0 ] && [ -f "$d/.kube-apiserver.complete" ] && { echo "${d%/}"; return 0; }
  done
  return 1
}

cmd_build() {
  local existing
  if existing=$(cached_bin_dir); then
    apt_install etcd-server openssl
    log "using cached binaries in $existing"
    echo "$existing"; return 0
  fi
  local t0=$SECONDS
  apt_install etcd-server openssl golang-go golang-github-modern-go-reflect2-dev dpkg-dev ca-certificates
  ensure_deb_src
  local ver; ver=$(src_version)
  [ -n "$ver" ] || die "apt-cache showsrc kubernetes found no source package"
  local work="$CACHE/src/$ver" out; out=$(bin_dir_of "$ver")
  mkdir -p "$work" "$out"
  local tree
  tree=$(find "$work" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n1 || true)
  if [ -z "$tree" ] || [ ! -f "$tree/.berth-patched" ]; then
    rm -rf "${work:?}"/*
    log "apt-get source kubernetes=$ver"
    (cd "$work" && apt-get source -qq "kubernetes=$ver" >/dev/null 2>&1) || (cd "$work" && apt-get source "kubernetes=$ver" >&2)
    tree=$(find "$work" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n1)
    [ -n "$tree" ] || die "apt-get source produced no kubernetes-* directory"
    local r2=/usr/share/gocode/src/github.com/modern-go/reflect2
    [ -d "$r2" ] || die "$r2 is missing (golang-github-modern-go-reflect2-dev)"
    rm -rf "$tree/vendor/github.com/modern-go/reflect2"
    cp -r "$r2" "$tree/vendor/github.com/modern-go/reflect2"
    # Keep go.mod and vendor/modules.txt naming what is vendored now (the build below is in GOPATH mode, which
    # ignores them, but a module-mode build of the same tree then stays consistent).
    sed -i 's|modern-go/reflect2 v1\.0\.1|modern-go/reflect2 v1.0.2|g' "$tree/go.mod" "$tree/vendor/modules.txt"
    touch "$tree/.berth-patched"
  fi
  # "1.20.5+really1.20.2-1.1+deb12u1" is upstream 1.20.2 (what the tree really contains).
  local upstream=${ver#*:}; upstream=${upstream##*really}; upstream=${upstream%%-*}; upstream=${upstream%%+*}
  local major=${upstream%%.*} minor; minor=${upstream#*.}; minor=${minor%%.*}
  # Kubernetes 1.20 builds in GOPATH mode (as its own hack/lib/golang.sh does): vendored packages are then
  # k8s.io/kubernetes/vendor/..., which is where the version variables must be set for `kubectl version` and
  # Helm's kubeVersion checks to see a real server version.
  local ldflags="-s -w" v
  for v in k8s.io/kubernetes/vendor/k8s.io/component-base/version k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version; do
    ldflags+=" -X $v.gitVersion=v$upstream -X $v.gitMajor=$major -X $v.gitMinor=$minor -X $v.gitTreeState=clean"
    ldflags+=" -X $v.buildDate=1970-01-01T00:00:00Z -X $v.gitCommit=debian-$ver"
  done
  local gopath="$CACHE/gopath"
  mkdir -p "$gopath/src/k8s.io"
  ln -sfn "$tree" "$gopath/src/k8s.io/kubernetes"
  export GOPATH="$gopath" GOCACHE="$CACHE/gocache" GO111MODULE=off CGO_ENABLED=0 GOFLAGS= GOPROXY=off
  # `providerless` leaves out the in-tree cloud providers (AWS, Azure, GCE, vSphere SDKs): a test cluster on
  # loopback needs none of them, and they are a large part of the build.
  local what=${BERTH_KUBE_BUILD:-kube-apiserver kube-controller-manager}
  # The OpenAPI definitions kube-apiserver serves are generated at build time (Kubernetes' `make generated_files`);
  # the source package does not carry them. Generate them the way build/root/Makefile.generated_files does.
  local oa="$gopath/src/k8s.io/kubernetes/pkg/generated/openapi/zz_generated.openapi.go"
  if [ ! -s "$oa" ]; then
    log "generating pkg/generated/openapi (openapi-gen)"
    (cd "$gopath/src/k8s.io/kubernetes" && go build -o "$CACHE/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen)
    local inputs
    inputs=$(cd "$gopath/src/k8s.io/kubernetes" && { grep -rl --include='*.go' '+k8s:openapi-gen=' pkg cmd plugin 2>/dev/null; grep -Rl --include='*.go' '+k8s:openapi-gen=' vendor/k8s.io 2>/dev/null; } |
      grep -v -e '^vendor/k8s.io/code-generator/' -e '^vendor/k8s.io/sample-apiserver/' | xargs -n1 dirname | LC_ALL=C sort -u | sed 's|^|k8s.io/kubernetes/|' | paste -sd, -)
    (cd "$gopath/src/k8s.io/kubernetes" && "$CACHE/openapi-gen" --logtostderr -i "$inputs" -p k8s.io/kubernetes/pkg/generated/openapi \
      -O zz_generated.openapi -h hack/boilerplate/boilerplate.generatego.txt -r "$CACHE/openapi-violations.report" --output-base "$gopath/src" >/dev/null 2>"$CACHE/openapi-gen.log") ||
      die "openapi-gen failed (see $CACHE/openapi-gen.log)"
  fi
  for c in $what; do
    log "go build ./cmd/$c (v$upstream, $(go version | awk '{print $3}'))"
    (cd "$gopath/src/k8s.io/kubernetes" && nice -n "${BERTH_KUBE_NICE:-10}" go build -trimpath -tags providerless -ldflags "$ldflags" -o "$out/$c" "./cmd/$c")
    touch "$out/.$c.complete"
  done
  touch "$out/.complete"
  log "built in $((SECONDS - t0))s: $out"
  echo "$out"
}

# ---------------------------------------------------------------------------------------------------------------
# start / stop

RUN_DEFAULT="$CACHE/run"

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# A key and a certificate signed by the cluster CA. $1 name, $2 subject, $3 extensions (openssl -extfile lines).
issue() {
  local dir=$1 name=$2 subj=$3 ext=$4
  openssl ecparam -name prime256v1 -genkey -noout -out "$dir/$name.key" 2>/dev/null
  openssl req -new -key "$dir/$name.key" -subj "$subj" -out "$dir/$name.csr" 2>/dev/null
  printf '%s\n' "$ext" >"$dir/$name.ext"
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 3650 \
    -extfile "$dir/$name.ext" -out "$dir/$name.crt" 2>/dev/null
  rm -f "$dir/$name.csr" "$dir/$name.ext"
}

# kubeconfig FILE SERVER CA CERT KEY USER
write_kubeconfig() {
  local file=$1 server=$2 ca=$3 cert=$4 key=$5 user=$6
  cat >"$file" <<KC
apiVersion: v1
kind: Config
clusters:
- name: berth-test
  cluster:
    server: $server
    certificate-authority: $ca
users:
- name: $user
  user:
    client-certificate: $cert
    client-key: $key
contexts:
- name: berth-test
  context:
    cluster: berth-test
    user: $user
    namespace: default
current-context: berth-test
KC
}

gen_pki() {
  local pki=$1
  mkdir -p "$pki"
  openssl ecparam -name prime256v1 -genkey -noout -out "$pki/ca.key" 2>/dev/null
  openssl req -x509 -new -key "$pki/ca.key" -subj "/CN=berth-test-ca" -days 3650 -out "$pki/ca.crt" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
  issue "$pki" apiserver "/CN=kube-apiserver" "$(printf '%s\n' \
    'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local' \
    'extendedKeyUsage=serverAuth' 'keyUsage=critical,digitalSignature,keyEncipherment')"
  issue "$pki" admin "/O=system:masters/CN=berth-admin" "extendedKeyUsage=clientAuth"
  issue "$pki" controller-manager "/CN=system:kube-controller-manager" "extendedKeyUsage=clientAuth"
  # ServiceAccount tokens: signed by the controller-manager's token controller and the TokenRequest API.
  openssl ecparam -name prime256v1 -genkey -noout -out "$pki/sa.key" 2>/dev/null
  openssl ec -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# readyz with the admin certificate; $1 = dir
api_ready() {
  local dir=$1
  [ -f "$dir/port" ] || return 1
  curl -fsS --max-time 3 --cacert "$dir/pki/ca.crt" --cert "$dir/pki/admin.crt" --key "$dir/pki/admin.key" \
    "https://127.0.0.1:$(cat "$dir/port")/readyz" >/dev/null 2>&1
}

print_env() {
  local dir=$1
  echo "KUBECONFIG=$dir/admin.kubeconfig"
  echo "BERTH_KUBE_DIR=$dir"
  echo "BERTH_KUBE_SERVER=https://127.0.0.1:$(cat "$dir/port")"
  echo "BERTH_KUBE_VERSION=$(cat "$dir/version")"
}

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
  log "$what after $((SECONDS - T0))s"
}

cmd_start() {
  local dir=${1:-$RUN_DEFAULT}
  mkdir -p "$dir"; dir=$(cd "$dir" && pwd)
  if pid_alive "$dir/kube-apiserver.pid" && api_ready "$dir"; then print_env "$dir"; return 0; fi
  cmd_stop "$dir" keep >/dev/null 2>&1 || true
  local bin; bin=$(cached_bin_dir) || die "no kube-apiserver built yet: run '$0 build' first (cached under $CACHE)"
  command -v etcd >/dev/null || die "etcd is missing: apt-get install etcd-server (or run '$0 build')"
  T0=$SECONDS
  mkdir -p "$dir/logs"
  [ -f "$dir/pki/admin.crt" ] || gen_pki "$dir/pki"
  local pki=$dir/pki
  "$bin/kube-apiserver" --version 2>/dev/null | awk '{print $2}' >"$dir/version"

  # etcd on tmpfs when there is one: fsync there costs nothing, and a test cluster needs no durability.
  local data
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then data=$(mktemp -d /dev/shm/berth-etcd.XXXXXX); else data="$dir/etcd"; mkdir -p "$data"; fi
  echo "$data" >"$dir/etcd-data"
  local attempt
  for attempt in 1 2 3; do
    local ep pp ap
    ep=$(free_port); pp=$(free_port); ap=$(free_port)
    setsid etcd --name berth --data-dir "$data" \
      --listen-client-urls "http://127.0.0.1:$ep" --advertise-client-urls "http://127.0.0.1:$ep" \
      --listen-peer-urls "http://127.0.0.1:$pp" --initial-advertise-peer-urls "http://127.0.0.1:$pp" \
      --initial-cluster "berth=http://127.0.0.1:$pp" \
      --snapshot-count 5000 --log-level warn >"$dir/logs/etcd.log" 2>&1 </dev/null &
    echo $! >"$dir/etcd.pid"
    echo "$ap" >"$dir/port"
    wait_for 30 "etcd up" curl -fsS --max-time 2 "http://127.0.0.1:$ep/health" -o /dev/null || {
      kill "$(cat "$dir/etcd.pid")" 2>/dev/null || true; rm -rf "${data:?}"/*; continue; }
    local args=(
      --etcd-servers "http://127.0.0.1:$ep" --etcd-prefix /registry
      --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$ap" --insecure-port 0
      --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key"
      --client-ca-file "$pki/ca.crt"
      --service-account-issuer https://kubernetes.default.svc.cluster.local
      --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key"
      --api-audiences https://kubernetes.default.svc.cluster.local
      --service-cluster-ip-range 10.0.0.0/24
      --authorization-mode Node,RBAC
      --endpoint-reconciler-type none
      --allow-privileged=true --profiling=false
      --cert-dir "$dir/pki/serving"
      --logtostderr=true --v=0
    )
    # Extra flags for tests, e.g. BERTH_KUBE_APISERVER_ARGS="--min-request-timeout=5" (watches end sooner).
    # shellcheck disable=SC2206
    [ -z "${BERTH_KUBE_APISERVER_ARGS:-}" ] || args+=(${BERTH_KUBE_APISERVER_ARGS})
    printf '%s\n' "$bin/kube-apiserver" "${args[@]}" >"$dir/kube-apiserver.args"
    launch_apiserver "$dir"
    if wait_for 90 "kube-apiserver ready on 127.0.0.1:$ap" api_ready "$dir"; then break; fi
    log "kube-apiserver did not become ready (attempt $attempt); log tail:"
    tail -n 5 "$dir/logs/kube-apiserver.log" >&2 || true
    kill "$(cat "$dir/kube-apiserver.pid")" "$(cat "$dir/etcd.pid")" 2>/dev/null || true
    sleep 1; rm -rf "${data:?}"/*
    [ "$attempt" != 3 ] || die "kube-apiserver would not start (see $dir/logs)"
  done
  local server="https://127.0.0.1:$(cat "$dir/port")"
  write_kubeconfig "$dir/admin.kubeconfig" "$server" "$pki/ca.crt" "$pki/admin.crt" "$pki/admin.key" berth-admin
  write_kubeconfig "$dir/controller-manager.kubeconfig" "$server" "$pki/ca.crt" "$pki/controller-manager.crt" "$pki/controller-manager.key" controller-manager

  if [ "${BERTH_KUBE_CONTROLLERS:-1}" != 0 ]; then
    # Only the controllers a test cluster without nodes needs; no insecure/secure port (parallel clusters).
    # --use-service-account-credentials: each controller acts as its own ServiceAccount (system:controller:*
    # roles), as kubeadm runs it. With it off, every controller acts as system:kube-controller-manager, whose
    # bootstrap role grants none of the controllers' rights: the Deployment controller was refused creating
    # ReplicaSets, so no pod ever existed and the first deploy never became DEPLOYED.
    setsid "$bin/kube-controller-manager" \
      --kubeconfig "$dir/controller-manager.kubeconfig" \
      --authentication-kubeconfig "$dir/controller-manager.kubeconfig" --authorization-kubeconfig "$dir/controller-manager.kubeconfig" \
      --bind-address 127.0.0.1 --port 0 --secure-port 0 --leader-elect=false \
      --controllers "${BERTH_KUBE_CONTROLLER_LIST:-deployment,replicaset,statefulset,garbagecollector,namespace,serviceaccount,serviceaccount-token,horizontalpodautoscaling,job,persistentvolume-binder,pvc-protection}" \
      --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
      --use-service-account-credentials=true \
      --concurrent-gc-syncs 5 --horizontal-pod-autoscaler-sync-period 5s \
      --logtostderr=true --v=0 >"$dir/logs/kube-controller-manager.log" 2>&1 </dev/null &
    echo $! >"$dir/kube-controller-manager.pid"
    # The serviceaccount controller creates `default` in every namespace: proof the controllers run.
    wait_for 60 "kube-controller-manager running" kctl_ok "$dir" get serviceaccount default -n default ||
      die "kube-controller-manager did not start (see $dir/logs/kube-controller-manager.log)"
  fi

  if [ -n "${BERTH_KUBE_PARENT_PID:-}" ]; then
    # Stop everything when the process that asked for it dies (a killed test run leaves nothing behind).
    (trap '' HUP; while kill -0 "$BERTH_KUBE_PARENT_PID" 2>/dev/null && [ -f "$dir/port" ]; do sleep 2; done; "$0" stop "$dir" >/dev/null 2>&1) \
      >/dev/null 2>&1 </dev/null &
    disown || true
  fi
  print_env "$dir"
}

launch_apiserver() {
  local dir=$1 cmd
  mapfile -t cmd <"$dir/kube-apiserver.args"
  setsid "${cmd[@]}" >>"$dir/logs/kube-apiserver.log" 2>&1 </dev/null &
  echo $! >"$dir/kube-apiserver.pid"
}

# restart-apiserver DIR: stop kube-apiserver and start it again on the same port and etcd (every watch breaks,
# as in an API server upgrade); returns once it is ready again.
cmd_restart_apiserver() {
  local dir=${1:?dir}
  [ -f "$dir/kube-apiserver.args" ] || die "no control plane in $dir"
  T0=$SECONDS
  local pid; pid=$(cat "$dir/kube-apiserver.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  for _ in 1 2 3 4 5; do
    launch_apiserver "$dir"
    wait_for 90 "kube-apiserver ready again" api_ready "$dir" && return 0
    kill "$(cat "$dir/kube-apiserver.pid")" 2>/dev/null || true; sleep 1   # the port may not be free yet
  done
  die "kube-apiserver did not come back (see $dir/logs/kube-apiserver.log)"
}

# A REST call as admin (no kubectl needed): kctl_ok DIR get serviceaccount NAME -n NS
kctl_ok() {
  local dir=$1 name=$4 ns=$6
  curl -fsS --max-time 3 --cacert "$dir/pki/ca.crt" --cert "$dir/pki/admin.crt" --key "$dir/pki/admin.key" \
    "https://127.0.0.1:$(cat "$dir/port")/api/v1/namespaces/$ns/serviceaccounts/$name" >/dev/null 2>&1
}

cmd_stop() {
  local dir=${1:-$RUN_DEFAULT} keep=${2:-}
  [ -d "$dir" ] || return 0
  local p pid
  for p in kube-controller-manager kube-apiserver etcd; do
    if [ -f "$dir/$p.pid" ]; then
      pid=$(cat "$dir/$p.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$dir/$p.pid"
    fi
  done
  if [ -f "$dir/etcd-data" ]; then rm -rf "$(cat "$dir/etcd-data")"; rm -f "$dir/etcd-data"; fi
  rm -f "$dir/port"
  if [ -z "$keep" ]; then rm -rf "$dir"; fi
  log "stopped ($dir)"
}

cmd_env() {
  local dir=${1:-$RUN_DEFAULT}
  [ -f "$dir/port" ] && api_ready "$dir" || die "no control plane running in $dir (start it with '$0 start $dir')"
  print_env "$(cd "$dir" && pwd)"
}

# kubeconfig DIR USER [GROUP...]: a client certificate for USER in GROUPs, for RBAC checks (`kubectl auth can-i`
# with a real identity). For a ServiceAccount pass system:serviceaccount:NS:NAME and the groups
# system:serviceaccounts system:serviceaccounts:NS: RBAC matches ServiceAccount subjects by that user name.
cmd_kubeconfig() {
  local dir=${1:?dir} user=${2:?user}; shift 2
  [ -f "$dir/port" ] || die "no control plane in $dir"
  local safe; safe=$(printf '%s' "$user" | tr -c 'A-Za-z0-9._-' '_')
  mkdir -p "$dir/users"
  local subj="" g
  for g in "$@"; do subj+="/O=$g"; done
  subj+="/CN=$user"
  issue "$dir/pki" "user-$safe" "$subj" "extendedKeyUsage=clientAuth"
  mv "$dir/pki/user-$safe.crt" "$dir/pki/user-$safe.key" "$dir/users/"
  write_kubeconfig "$dir/users/$safe.kubeconfig" "https://127.0.0.1:$(cat "$dir/port")" "$dir/pki/ca.crt" \
    "$dir/users/user-$safe.crt" "$dir/users/user-$safe.key" "$user"
  echo "$dir/users/$safe.kubeconfig"
}

case "${1:-}" in
  build) cmd_build ;;
  start) cmd_start "${2:-}" ;;
  stop) cmd_stop "${2:-}" ;;
  env) cmd_env "${2:-}" ;;
  kubeconfig) shift; cmd_kubeconfig "$@" ;;
  restart-apiserver) cmd_restart_apiserver "${2:-}" ;;
  bin-dir) cached_bin_dir ;;
  *) die "usage: $0 build|start [DIR]|stop [DIR]|env [DIR]|kubeconfig DIR USER [GROUP...]|bin-dir" ;;
esac
