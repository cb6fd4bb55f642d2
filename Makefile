# Berth — common tasks. `make dev` and `make test` are the README's quick start.
NODE_MODULES := node_modules/.package-lock.json
BUILD_STAMP := dist/.build-stamp

.PHONY: dev serve test test-under-load typecheck build bench bench-tracing bench-control-plane bench-operator bench-console bench-console-studio clean e2e-kind kube-control-plane test-kube

$(NODE_MODULES): package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

## Everything on one machine (control plane, tracing, local runtime) on embedded defaults: http://127.0.0.1:8080
## (builds dist/ first if a source changed)
dev: build
	node bin/berth.js dev

## Run the bundled example agents on embedded defaults (PGlite in examples/.berth, port 8123).
serve: build
	node bin/berth.js serve --config examples/langgraph.json

## Type-check (strict) and run every test (needs Postgres and Redis on 127.0.0.1; see README).
test: $(NODE_MODULES)
	npm run typecheck --silent
	npx vitest run $(VITEST_FLAGS)

## The tests while other processes keep every core busy (stress-ng, else node busy loops), as on a
## loaded CI machine; prints counts and wall time. Only some files: make test-under-load TESTS=test/runtime
test-under-load: $(NODE_MODULES)
	npm run typecheck --silent
	scripts/ci-under-load.sh $(TESTS)

typecheck: $(NODE_MODULES)
	npm run typecheck --silent

## Compile to dist/ (what the container image runs), only when something it is built from changed.
build: $(BUILD_STAMP)

# dist/ is current when its stamp is newer than everything the build reads: the sources and the
# console's (a deleted file changes its directory's time, hence the directories too), the lockfile
# through node_modules, and the compiler and bundler configuration. `make dev` restarts in seconds.
BUILD_INPUTS := $(shell find src -type f -o -type d) package.json tsconfig.json tsconfig.build.json
$(BUILD_STAMP): $(NODE_MODULES) $(BUILD_INPUTS)
	npm run build --silent
	@touch $@

## Agent server benchmark (prints a table). BENCH_BACKENDS=pglite,postgres by default; BENCH_PEER_URL=<LangGraph.js dev server> adds the peer
## (scripts/bench-peer.sh installs it outside the clone and serves the benches' graphs; bench/streaming.ts takes BENCH_PEER_URL too).
bench: build
	node --import tsx bench/agent-server.ts

## Tracing benchmark (prints tables): SDK multipart ingest (live, and its captured requests replayed)
## vs a pg-only floor, for the posted-patched and merged workloads; stats over 1M runs. Needs Postgres
## on 127.0.0.1. Quick ingest-only run: make bench-tracing BENCH_TRACING_FLAGS="--runs 2000 --skip-stats"
## (also --workload posted-patched|merged|both, --replay-concurrency 10, --stats-runs, --cpu-prof DIR)
bench-tracing: build
	node --import tsx bench/tracing.ts $(BENCH_TRACING_FLAGS)

## Control plane benchmark (prints tables): `berth dev` from dist/ on its embedded database deploys the
## example agents 5 times (POST → DEPLOYED split into queue, clone, install, build, start), times a
## secrets-only PATCH until a run sees the new value, then GET latency under 50 concurrent clients with
## 200 deployments present. No services needed; works under scratch/. Quick run:
## make bench-control-plane BENCH_CONTROL_PLANE_FLAGS="--deploys 2 --deployments 50 --seconds 3"
## (also --clients 50, --create-concurrency 8, --cpu-prof DIR)
bench-control-plane: build
	node --import tsx bench/control-plane.ts $(BENCH_CONTROL_PLANE_FLAGS)

## Operator benchmark (prints a table): `berth operator` reconciling 1,000 AgentDeployments against the
## tests' fake API server — time to steady state, reconciles/s, API calls per reconcile, memory — for
## create, a rollout of a new revision, and a restart. No services needed. Quick run:
## make bench-operator BENCH_OPERATOR_FLAGS="--n 200"  (also --workers 4, --kubelet-ms 50)
bench-operator: build
	node --import tsx bench/operator.ts $(BENCH_OPERATOR_FLAGS)

## Web console benchmark (prints tables): in headless Chromium (Debian's chromium), time to first render and to
## interactive of the trace view of a 2,000-run trace and of the traces table, project list and dashboard of a
## 1,000,000-run project (median, p90, min of 5 cold loads), and the Studio (below). Needs Postgres on 127.0.0.1. Quick run:
## make bench-console BENCH_CONSOLE_FLAGS="--runs 3 --project-runs 100000"  (also --trace-runs 2000, --skip-project,
## --skip-trace, --skip-studio, --checkpoints 1000)
bench-console: build
	node --import tsx bench/console.ts $(BENCH_CONSOLE_FLAGS)

## Only the Studio part of it (bench-console includes it): the bundled examples deployed on `berth dev`,
## first render of the graph view and of a thread of 1,000 checkpoints, first token after Send against the
## SSE event's arrival (the console's added delay). Quick run:
## make bench-console-studio BENCH_CONSOLE_FLAGS="--runs 3 --checkpoints 300"
bench-console-studio: build
	node --import tsx bench/console.ts --skip-trace --skip-project $(BENCH_CONSOLE_FLAGS)

## Build (or reuse) the real Kubernetes control plane the real-API-server suites run on (part of `make test`;
## .ci/run calls this first): kube-apiserver and kube-controller-manager from Debian's kubernetes source
## package, etcd from etcd-server; cached in ~/.cache/berth/kube, so only a new machine pays the build.
kube-control-plane:
	nice -n 10 scripts/kube-control-plane.sh build

## Only the suites on a real kube-apiserver + kube-controller-manager (one private cluster per file; see README);
## `make test` runs them too.
test-kube: $(NODE_MODULES) kube-control-plane
	npx vitest run test/operator/real-apiserver $(VITEST_FLAGS)

## End-to-end on a kind cluster: builds the image, helm-installs charts/berth, runs vitest.kind.config.ts, deletes
## the cluster. Without a Docker engine or kind it says so and succeeds. BERTH_KIND_KEEP=1 keeps the cluster.
e2e-kind: $(NODE_MODULES)
	scripts/e2e-kind.sh

clean:
	rm -rf dist examples/.berth
