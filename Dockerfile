# The GitHub App's container image (docs/deployment.md). Two stages: `build` installs the
# dependencies (all of them are build-time: the App is one esbuild bundle) and bundles the App;
# the image keeps only the bundle, its third-party licenses and app.yml — no node_modules.
# test/app/container.test.ts runs these steps (COPY, RUN, ENV, CMD, HEALTHCHECK) in a
# temporary copy, so they stay true without a Docker engine.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY scripts/bundle-app.ts scripts/package.ts ./scripts/
COPY src ./src
RUN npm run build:app

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/lib/app-bundle ./lib/app-bundle
COPY app.yml LICENSE ./
# The image's own unprivileged user; nothing under /app is writable by it.
USER node
EXPOSE 3000
# Probot answers GET /ping with 200 PONG once it serves webhooks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/ping').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Probot stops its server cleanly on SIGINT (Docker's default SIGTERM would just end the process).
STOPSIGNAL SIGINT
CMD ["node", "lib/app-bundle/app.js"]
