# Understudy: the sandbox in a container. Multi-stage: the build stage compiles TypeScript with the
# dev dependencies; the runtime stage keeps only production dependencies and the compiled output.
# It runs the same commands as the README (npm ci, npm run build, the understudy CLI).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/build.mjs scripts/config-validator.mjs scripts/bundle.mjs scripts/build-state.mjs ./scripts/
# The build starts the bundle once on the Pet Store, to make its code cache.
COPY openapi ./openapi
COPY fixtures ./fixtures
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4010
WORKDIR /app
COPY package.json package-lock.json ./
# The cache directory (parsed documents, compiled validators, the kept seed) is the node user's, so
# that a container started again starts as fast as a checkout does.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force \
    && mkdir -p node_modules/.cache/understudy && chown node:node node_modules/.cache/understudy
COPY --from=build /app/dist ./dist
COPY openapi ./openapi
COPY fixtures ./fixtures
COPY web ./web
USER node
EXPOSE 4010
# Ready: serving, and (with --redis) reaching Redis; /__sandbox/health/live only says the process answers.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 4010) + '/__sandbox/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "--max-semi-space-size=4", "--min-semi-space-size=4", "dist/cli/bin.cjs"]
