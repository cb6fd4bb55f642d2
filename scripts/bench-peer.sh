#!/usr/bin/env bash
# The benchmarks' peer: the LangGraph.js dev server (`langgraphjs dev` from @langchain/langgraph-cli)
# serving the graphs bench/agent-server.ts (`chat`, the example agent on its offline echo model) and
# bench/streaming.ts (`tokens`, the 1,000-token fake model) measure, so BENCH_PEER_URL can point at it:
#
#   scripts/bench-peer.sh &                       # installs on first use, then serves on :2024
#   BENCH_PEER_URL=http://127.0.0.1:2024 make bench
#   BENCH_PEER_URL=http://127.0.0.1:2024 node --import tsx bench/streaming.ts
#
# It installs into a cache directory OUTSIDE the clone (BERTH_PEER_DIR, default
# ~/.cache/berth/bench-peer), so the peer's node_modules never mix with Berth's, with the LangChain
# versions Berth's package.json asks for; the graph files are copied there so they resolve the
# peer's own @langchain packages. The dev server keeps its state in memory and saves it on exit;
# each start of this script begins empty (restart it between runs for a clean start).
# Options: PORT (2024), BERTH_PEER_CLI_VERSION (1.5.1), N_JOBS_PER_WORKER (10).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEER_DIR="${BERTH_PEER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/berth/bench-peer}"
PORT="${PORT:-2024}"
CLI_VERSION="${BERTH_PEER_CLI_VERSION:-1.5.1}"
# The version ranges Berth itself uses, so both servers run the same LangGraph and LangChain core.
range() { node -e "const p=require('$ROOT/package.json');process.stdout.write(p.dependencies['$1']??p.devDependencies['$1'])"; }

mkdir -p "$PEER_DIR/graphs/chat" "$PEER_DIR/graphs/stream"
cd "$PEER_DIR"
if [ ! -x node_modules/.bin/langgraphjs ]; then
  # ESM, as Berth's graphs are (the example agent awaits its model at the top level)
  [ -f package.json ] || echo '{ "name": "berth-bench-peer", "private": true, "type": "module" }' > package.json
  npm install --no-audit --no-fund \
    "@langchain/langgraph-cli@$CLI_VERSION" \
    "@langchain/langgraph@$(range @langchain/langgraph)" \
    "@langchain/core@$(range @langchain/core)"
fi

node -e "const f='package.json',p=JSON.parse(require('fs').readFileSync(f));if(p.type!=='module'){p.type='module';require('fs').writeFileSync(f,JSON.stringify(p,null,2))}"
# The benchmarks' graphs, as Berth serves them (copied on every start so edits are picked up).
cp "$ROOT"/examples/chat/{agent,model,echo-model}.ts graphs/chat/
cp "$ROOT"/bench/stream/graph.ts graphs/stream/
cat > langgraph.json <<'JSON'
{
  "node_version": "20",
  "graphs": {
    "chat": "./graphs/chat/agent.ts:graph",
    "tokens": "./graphs/stream/graph.ts:graph"
  },
  "env": {}
}
JSON

# A clean start: the dev server saves its threads, runs and checkpoints under .langgraph_api when it
# stops and loads them again when it starts, and it slows as they pile up (c=50 went 52 -> 16 runs/s
# over seven bench runs, restarts included, with 176 MB saved there).
rm -rf "$PEER_DIR/.langgraph_api"

# The example agent's offline model (the Berth benchmark sets the same), no tracing upload.
export BERTH_CHAT_MODEL=echo LANGSMITH_TRACING=false LANGCHAIN_TRACING_V2=false
exec node_modules/.bin/langgraphjs dev --no-browser --no-reload --host 127.0.0.1 --port "$PORT" \
  --n-jobs-per-worker "${N_JOBS_PER_WORKER:-10}" --config "$PEER_DIR/langgraph.json"
