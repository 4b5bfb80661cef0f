# The GitHub App's container image (docs/deployment.md). Two stages: `build` compiles TypeScript
# with the dev dependencies; the image keeps only lib/, app.yml and the production dependencies.
# test/app/container.test.ts runs these steps (COPY, RUN, ENV, CMD, HEALTHCHECK) in a
# temporary copy, so they stay true without a Docker engine.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/prepare.js scripts/bundle-cli.js ./scripts/
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/scripts/prepare.js ./scripts/prepare.js
COPY --from=build /app/lib ./lib
COPY app.yml ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# The image's own unprivileged user; nothing under /app is writable by it.
USER node
EXPOSE 3000
# Probot answers GET /ping with 200 PONG once it serves webhooks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/ping').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Probot stops its server cleanly on SIGINT (Docker's default SIGTERM would just end the process).
STOPSIGNAL SIGINT
CMD ["node", "lib/app/main.js"]
