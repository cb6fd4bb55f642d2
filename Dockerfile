# syntax=docker/dockerfile:1
# The Berth image: one image for every component, chosen by the command (the ENTRYPOINT is the
# `berth` CLI). Build it from the repository root:
#
#   docker build -t berth .
#
# Commands:
#   docker run -p 8000:8000 -v "$PWD:/deps" berth                       # = berth serve --config /deps/langgraph.json
#   docker run -p 8000:8000 berth serve --config /app/examples/langgraph.json   # the bundled examples
#   docker run --no-healthcheck -e DATABASE_URI=… -e REDIS_URI=… -v "$PWD:/deps" berth worker --config /deps/langgraph.json
#   docker run -p 8080:8080 -e PORT=8080 -e DATABASE_URI=… -e BERTH_SECRETS_KEY=… -e BERTH_API_KEY=… \
#     -e BERTH_AUTH_MODE=required berth control-plane                      # REST API v2, /ok, /tracing
#   docker run --no-healthcheck -v ~/.kube:/home/node/.kube:ro berth operator   # reconciles AgentDeployments (/healthz on 8081)
#   docker run -p 8080:8080 -e PORT=8080 -v berth-data:/data berth dev     # everything, embedded, one container
#
# `serve` (agent server, port 8000) takes DATABASE_URI and REDIS_URI; without DATABASE_URI it uses the embedded
# database under BERTH_DATA_DIR (/data: mount a volume to keep it). On Kubernetes, install charts/berth instead.
#
# Agent images extend this one (what the control plane's image builds do):
#
#   FROM ghcr.io/berth-dev/berth:<version>
#   COPY --chown=node:node . /deps
#   RUN cd /deps && if [ -f package-lock.json ]; then npm ci --omit=dev; fi
#
# (The control plane's builds also run `berth image-step check|dependencies`: langgraph.json's node_version must
# be this image's Node.js major — build with --build-arg NODE_IMAGE=node:22-bookworm-slim for another one.)
#
# Stages: `build` compiles; `base` is the runtime without a default command (`docker build --target base`);
# the last stage, the default, is `base` plus CMD `serve --config /deps/langgraph.json`.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: install everything, compile, then drop dev dependencies -----------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# swagger-ui-dist pulls in @scarf/scarf, whose install script phones home.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build
# tsx stays: it is a runtime dependency that loads .ts graphs.
RUN npm prune --omit=dev --no-audit --no-fund

# ---- base: the runtime, no default command ------------------------------------------------------
FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000
# The embedded database (used when DATABASE_URI is unset) lives here, writable by the app user;
# mount a volume on /data to keep it across containers.
ENV BERTH_DATA_DIR=/data
# The project's config, for `berth serve` / `berth worker` started without --config (the operator's pods
# run `command: ["berth", "serve"]` from WORKDIR /app). Agent images built FROM this one may override it.
ENV BERTH_CONFIG=/deps/langgraph.json
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY examples ./examples
# /node_modules lets a project in /deps that ships no node_modules of its own import
# @langchain/langgraph and @langchain/core from Berth's (Node resolves up to the filesystem root).
# `berth` on PATH: the operator starts agent containers with `command: ["berth", "serve"|"worker"]`.
# /deps (the project) and /data are owned by the app user so images extending this one can install into /deps.
RUN ln -s /app/node_modules /node_modules \
 && ln -s /app/bin/berth.js /usr/local/bin/berth \
 && mkdir -p /data /deps \
 && chown node:node /data /deps
# uid/gid 1000 in the node images; Kubernetes manifests set runAsUser: 1000 to match.
USER node
EXPOSE 8000
# slim images have no curl: ask Node. (`berth worker` and `berth operator` serve no /ok on PORT: run
# them with --no-healthcheck. Kubernetes ignores HEALTHCHECK and uses the chart's probes.)
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/ok').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/berth.js"]

# ---- default: an agent server for the project in /deps ------------------------------------------
FROM base AS server
# Mount or COPY your project to /deps (the LangGraph convention: /deps/langgraph.json, paths in it
# relative to /deps). A project with TypeScript graphs needs "type": "module" in its package.json.
CMD ["serve", "--config", "/deps/langgraph.json"]
