# syntax=docker/dockerfile:1
# The Berth agent server image. Build it from the repository root:
#
#   docker build -t berth .
#
# Run your LangGraph.js project (the directory holding langgraph.json) mounted at /deps:
#
#   docker run -p 8000:8000 -v "$PWD:/deps" berth
#   docker run -p 8000:8000 -e DATABASE_URI=postgres://… -e REDIS_URI=redis://… -v "$PWD:/deps" berth
#
# Try the bundled examples:   docker run -p 8000:8000 berth serve --config /app/examples/langgraph.json
# Queue workers only:         docker run --no-healthcheck -e DATABASE_URI=… -v "$PWD:/deps" berth worker --config /deps/langgraph.json

# ---- build: install everything, compile, then drop dev dependencies -----------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
# swagger-ui-dist pulls in @scarf/scarf, whose install script phones home.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json
# tsx stays: it is a runtime dependency that loads .ts graphs.
RUN npm prune --omit=dev --no-audit --no-fund

# ---- runtime ------------------------------------------------------------------------------------
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000
# The embedded database (used when DATABASE_URI is unset) lives here, writable by the app user;
# mount a volume on /data to keep it across containers.
ENV BERTH_DATA_DIR=/data
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY examples ./examples
# /node_modules lets a project in /deps that ships no node_modules of its own import
# @langchain/langgraph and @langchain/core from Berth's (Node resolves up to the filesystem root).
RUN ln -s /app/node_modules /node_modules \
 && mkdir -p /data \
 && chown node:node /data
USER node
EXPOSE 8000
# slim images have no curl: ask Node. (`berth worker` serves no HTTP: run it with --no-healthcheck.)
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/ok').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/berth.js"]
# Mount or COPY your project to /deps (the LangGraph convention: /deps/langgraph.json, paths in it
# relative to /deps). A project with TypeScript graphs needs "type": "module" in its package.json.
CMD ["serve", "--config", "/deps/langgraph.json"]
