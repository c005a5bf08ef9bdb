# gengate: the API and worker roles in one image (`serve --role api|worker|all`, or any CLI command).
#   docker build -t gengate .
#   docker run -p 8080:8080 gengate                      # embedded: SQLite and files in /data
#   docker compose -f deploy/compose.yaml up             # scaled out: PostgreSQL, Redis, MinIO
# Node 22 by default (Node 20 is past its end of life; package.json accepts both lines):
#   docker build --build-arg NODE_VERSION=20 .
ARG NODE_VERSION=22

# ---- deps: the production dependencies only (no compiler: the SQLite driver ships its binaries) ---
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci checks the workspaces of package.json against the lock file.
COPY packages/client/package.json packages/client/
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# ---- build: src/ compiled to dist/ (esbuild is a production dependency) --------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY package.json tsconfig.json ./
COPY scripts/build.mjs scripts/
COPY src src
RUN npm run build

# ---- runtime: no compiler, no dev dependencies, not root ----------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY package.json package-lock.json ./
COPY bin bin
COPY scripts/build.mjs scripts/
COPY deploy/healthcheck.mjs deploy/
COPY --from=build /app/src src
COPY --from=build /app/dist dist
# The build is newer than every source, so bin/gengate.mjs runs dist/ at once; the smoke run proves
# the image starts its CLI. /data holds SQLite and local files in the embedded mode.
RUN touch dist/.built \
 && node bin/gengate.mjs help > /dev/null \
 && mkdir -p /data \
 && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
# (deploy/compose.yaml adds a start period; the process serves within a second of starting.)
HEALTHCHECK --interval=10s --timeout=5s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs"]
ENTRYPOINT ["node", "--max-semi-space-size=32", "bin/gengate.mjs"]
CMD ["serve", "--role", "all"]
