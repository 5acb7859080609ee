# syntax=docker/dockerfile:1
# Multi-stage build: one image runs either the API or the worker (the command picks).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install, not npm ci: the lock was made where the registry serves only linux-x64's optional
# native packages, and npm ci calls such a lock out of sync (see scripts/lib/services.sh).
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY apps apps
COPY libs libs
COPY bench bench
RUN npx tsc -p tsconfig.build.json && npx vite build --config apps/web/vite.config.ts && npm prune --omit=dev

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
USER node
EXPOSE 3000
CMD ["node", "dist/apps/api/src/main.js"]
