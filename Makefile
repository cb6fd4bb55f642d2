# Berth — common tasks. `make serve` and `make test` are the README's quick start.
NODE_MODULES := node_modules/.package-lock.json

.PHONY: serve test typecheck build bench clean e2e-kind

$(NODE_MODULES): package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

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

clean:
	rm -rf dist examples/.berth
