# Production image: compiled app, production dependencies only, runs as a non-root user
# with a read-only root filesystem possible (everything it writes goes to /data).
FROM node:24.11.1-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.sdk.json .swcrc ormconfig.ts ./
COPY src ./src
# The clients' packages: packages/shared is part of the server, the SDK's generated types
# and deploy code go into the dashboard, and the compiled CLI (dist/cli, run by bin/) stays
# in the image as before. Only dist/ reaches the final stage, never these sources.
COPY packages ./packages
COPY scripts ./scripts
COPY bin ./bin
# The dashboard: built into dist/web by npm run build (Vite and React are dev dependencies).
COPY web ./web
# Only what runs is kept. --omit=optional as well as --omit=dev: TypeScript (24 MB) is an
# optional peer dependency of @nestjs/swagger (its build-time plugin only), which npm marks
# "devOptional" and keeps with --omit=dev alone. The optional packages of the production
# tree are that, the embedded PostgreSQL's server binaries (60 MB: the image runs against
# DATABASE_URL) and pg-cloudflare (Workers only). node_modules: 206 MB (229 MB before).
RUN npm run build && npm prune --omit=dev --omit=optional --no-audit --no-fund

FROM node:24.11.1-bookworm-slim
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
# `builder` (bin/builder) runs builders alone: docker run <image> builder
ENV PATH=/app/bin:$PATH
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# Follows PORT; loopback hosts always reach the API, whatever API_HOSTS says. Kept only in
# Docker-format images: `podman build` writes OCI by default, which drops it (build with
# `--format docker`); docker-compose.yml declares the same check, so compose needs neither.
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]
