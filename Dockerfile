# syntax=docker/dockerfile:1
# The service as an image: docker build -t paper-bets . (docs/deploy.md).
# Three stages on one Debian release (trixie): the full node image has the
# compilers the native addon better-sqlite3 may need, the slim one
# does not, so the production node_modules are installed on the full image and
# copied into the slim one, whose C library is the same.

# Every dependency, then the server (dist/) and the web app (web/dist/). npm ci
# builds both already; npm run build again fails the image when either fails.
FROM node:26-trixie AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund && npm run build

# What the running server loads, and nothing else (its install step sees the
# build tools absent and says so in one line).
FROM node:26-trixie AS deps
WORKDIR /app
COPY . .
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:26-trixie-slim
# No outside service is chosen here: each container is told SMTP_URL or
# MAIL_TRANSPORT=log, Stripe's keys or PAYMENTS=local, TELEGRAM_BOT_TOKEN or
# CHAT_TRANSPORT=log, and PRICE_PROVIDER=finnhub or simulated, or it refuses to
# start; an image that chose the simulators would run on them unnoticed
# (docs/deploy.md).
# MALLOC_MMAP_THRESHOLD_: glibc maps allocations of 4 MiB and more and returns
# them when freed. Without it, glibc's moving threshold, once risen past such a
# size, serves it from the arena of the thread that asked and keeps it
# resident (docs/performance.md, Memory).
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=4194304 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/app/data/bets.db
WORKDIR /app
COPY --from=deps /app/package.json /app/package-lock.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
# The SQLite database (the default DATABASE_URL) lives in the volume; a new
# named volume copies this folder's owner, so the node user can write there.
RUN mkdir -p data && chown node:node data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
# GET / answers 200 while the service runs (its body says ok or degraded); the
# slim image has no curl, node's fetch does it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --start-interval=2s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself as the container's first process: it gets docker stop's SIGTERM
# directly and shuts down gracefully (npm start would sit in between).
CMD ["node", "dist/main.js"]
