# Berth — common tasks. `make dev` and `make test` are the README's quick start.
NODE_MODULES := node_modules/.package-lock.json

.PHONY: dev serve test typecheck build bench bench-tracing bench-control-plane clean e2e-kind

$(NODE_MODULES): package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

## Everything on one machine (control plane, tracing, local runtime) on embedded defaults: http://127.0.0.1:8080
dev: build
	node bin/berth.js dev

## Run the bundled example agents on embedded defaults (PGlite in examples/.berth, port 8123).
serve: build
	node bin/berth.js serve --config examples/langgraph.json

## Type-check (strict) and run every test (needs Postgres and Redis on 127.0.0.1; see README).
test: $(NODE_MODULES)
	npx tsc -p tsconfig.json --noEmit
	npx vitest run $(VITEST_FLAGS)

typecheck: $(NODE_MODULES)
	npx tsc -p tsconfig.json --noEmit

## Compile to dist/ (what the container image runs).
build: $(NODE_MODULES)
	npx tsc -p tsconfig.build.json

## Agent server benchmark (prints a table). BENCH_BACKENDS=pglite,postgres by default.
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

clean:
	rm -rf dist examples/.berth
