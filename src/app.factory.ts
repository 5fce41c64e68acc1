import 'reflect-metadata';

import type { IncomingMessage, Server, ServerResponse } from 'node:http';

import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { compose, type Handler } from 'compose-middleware';
import type { NextFunction, Request, Response } from 'express';
import type { DestinationStream, Logger } from 'pino';

import { AppModule } from './app.module';
import { BearerStrategy } from './auth/guard/bearer.strategy';
import { invalidCredentials } from './auth/guard/credentials';
import { STRIPE_WEBHOOK_PATH } from './billing/billing-webhook.controller';
import { addressPrefix } from './common/address-prefix';
import {
  applyConnectionCaps,
  applyConnectionTimeouts,
  ASSUMED_OPEN_FILE_LIMIT,
  defaultMaxConnections,
  LOOPBACK_RESERVE,
  readOpenFileLimit,
  type RefusalReason,
} from './common/connection-limits';
import { docsPageHeaders } from './common/docs-page';
import { GlobalExceptionFilter } from './common/exception.filter';
import { jsonBodyParser } from './common/json-body';
import { jsonShapeLimits } from './common/json-shape';
import { createLogger, httpLogger, PinoNestLogger } from './common/logging';
import { createValidationPipe } from './common/validation';
import { AppConfig } from './config/app-config';
import { apiHostsSharingCookies } from './config/cookie-scope';
import { dashboardMiddleware } from './dashboard/dashboard.middleware';
import { declaredCodes } from './error-codes';
import { GIT_HOOKS_PATH } from './hooks/hooks.controller';
import { apiMetrics } from './metrics/api-metrics';
import { MetricsService } from './metrics/metrics.service';
import { finishOpenApiDocument } from './openapi/openapi-document';
import { SiteRouter } from './sites/site-router.service';

type ExpressMiddleware = (req: Request, res: Response, next: NextFunction) => void;

export interface CreateAppOptions {
  /** Settings that win over process.env (tests use these instead of mutating the environment). */
  env?: Record<string, string | undefined>;
  /** Where log lines go (default stdout). */
  logDestination?: DestinationStream;
}

export interface CreatedApp {
  app: NestExpressApplication;
  config: AppConfig;
  logger: Logger;
}

export function buildOpenApiDocument(app: NestExpressApplication) {
  const config = new DocumentBuilder()
    .setTitle('Static hosting API')
    .setDescription('Deploy files to projects and serve them, with password and email gates. See README.md.')
    .setVersion('1')
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An `sk_live_` API token or a dashboard JWT' })
    .addSecurityRequirements('bearer')
    .build();
  return finishOpenApiDocument(SwaggerModule.createDocument(app, config), app, { codes: declaredCodes(), serverUrl: publicApiUrl(app.get(AppConfig)) });
}

/** The API's public address when API_HOSTS names it; else the document's servers entry is relative. */
function publicApiUrl(config: AppConfig): string | undefined {
  const host = config.apiHosts[0];
  if (!host) return undefined;
  const port = config.publicPort;
  return `${config.PUBLIC_SCHEME}://${host}${port ? `:${port}` : ''}`;
}

/** The origin of publicApiUrl, which Swagger UI's "Try it out" calls. */
function apiOrigin(config: AppConfig): string | undefined {
  const url = publicApiUrl(config);
  return url === undefined ? undefined : new URL(url).origin;
}

/**
 * Puts the site router in front of Express on the app's own HTTP server: requests
 * for a site host are answered there and never enter Express.
 */
function installSiteRouter(app: NestExpressApplication): void {
  const server = app.getHttpServer() as Server;
  const express = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on(
    'request',
    app.get(SiteRouter).dispatcher((req, res) => express.forEach((listener) => listener.call(server, req, res))),
  );
}

/**
 * For the body parser: whether the request carries a working bearer credential (the
 * guard checks the route's rules later). Parsed as passport-http-bearer does.
 */
function bearerCheck(strategy: BearerStrategy): (req: Request) => Promise<boolean> {
  return async (req) => {
    const header = req.headers.authorization;
    if (header === undefined) return false;
    const parts = header.split(' ');
    if (parts.length !== 2 || !/^Bearer$/i.test(parts[0]) || !(await strategy.validate(parts[1]))) throw invalidCredentials();
    return true;
  };
}

/**
 * `step` for every request but those under `prefix` (forge and Stripe webhooks read their own raw
 * body: the signature is over its bytes). Without regard to case, as Express routes: `/HOOKS/git/…`
 * reaches the same controller, which finds nothing left to read if the JSON parser ran.
 */
function exceptPath(prefix: string, step: ExpressMiddleware): ExpressMiddleware {
  const lower = prefix.toLowerCase();
  return (req, res, next) => (req.url.toLowerCase().startsWith(lower) ? next() : step(req, res, next));
}

/**
 * A site's script can set cookies for a parent domain it shares with the API host (issue
 * 26). The refresh cookie is safe from that under https (`__Host-`), but nothing else the
 * API host may ever set is, and under http not even that: say so at every start.
 */
function warnOfSharedCookieParent(config: AppConfig, logger: Logger): void {
  const apiHosts = [...config.apiHosts, new URL(config.apiBaseUrl).hostname];
  for (const { apiHost, parent } of apiHostsSharingCookies(apiHosts, config.SITES_DOMAIN)) {
    logger.warn(
      { apiHost, sitesDomain: config.SITES_DOMAIN, parent },
      `the API host ${apiHost} and the sites (*.${config.SITES_DOMAIN}) share the parent domain ${parent}, which is not a public suffix: ` +
        "a hosted site's script can set cookies that the API host receives. Serve the sites from a registrable domain of their own " +
        '(as github.io, netlify.app and pages.dev are); see docs/security.md',
    );
  }
}

/** Builds the whole HTTP app exactly as production runs it; tests use it too. */
export async function createApp(options: CreateAppOptions = {}): Promise<CreatedApp> {
  const level = options.env?.LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'info';
  const logger = createLogger(level, options.logDestination);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(options.env), {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  const config = app.get(AppConfig);
  warnOfSharedCookieParent(config, logger);

  app.disable('x-powered-by');
  // The same trust function as clientAddress's, so req.ip (should anything read it) agrees with it.
  app.set('trust proxy', config.trustProxy);
  const metrics = app.get(MetricsService);
  const hsts = config.hstsHeader;
  // One router layer for what every API request passes through: Express's router costs a
  // path match, a params object and a closure per layer per request.
  const steps: ExpressMiddleware[] = [
    httpLogger(logger, { observe: metrics.enabled ? apiMetrics(metrics) : undefined, trustProxy: config.trustProxy }),
    (_req, res, next) => {
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if (hsts) res.setHeader('Strict-Transport-Security', hsts);
      next();
    },
    dashboardMiddleware(),
    docsPageHeaders('/docs', apiOrigin(config)),
    exceptPath(
      GIT_HOOKS_PATH,
      exceptPath(
        STRIPE_WEBHOOK_PATH,
        jsonBodyParser({
          limit: config.BODY_LIMIT_BYTES,
          anonymousLimit: config.ANONYMOUS_BODY_LIMIT_BYTES,
          shape: jsonShapeLimits(config.MAX_FILES_PER_DEPLOYMENT),
          authenticate: bearerCheck(app.get(BearerStrategy)),
        }),
      ),
    ),
  ];
  // compose's `next` takes an Error or nothing, a narrower type than Express's NextFunction (which also takes 'route').
  app.use(compose(steps as Handler<Request, Response>[]));
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new GlobalExceptionFilter(logger));

  // Built on the first request for it, not at every start: scanning every route's decorators is
  // 0.15 s of a 1 s start (test suites start hundreds of apps). The OpenAPI suites and
  // `npm run sdk:check` build it in every run, so a broken decoration still fails there.
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), { jsonDocumentUrl: 'docs/openapi.json', raw: ['json'] });

  await app.init();
  installSiteRouter(app);
  applyConnectionTimeouts(app.getHttpServer() as Server, {
    headersMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestMs: config.HTTP_REQUEST_TIMEOUT_MS,
    idleMs: config.HTTP_IDLE_TIMEOUT_MS,
    keepAliveMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  });
  installConnectionCaps(app.getHttpServer() as Server, config, logger, metrics);
  return { app, config, logger };
}

/** The connection caps of HTTP_MAX_CONNECTIONS(_PER_ADDRESS), checked against the open-file limit. */
function installConnectionCaps(server: Server, config: AppConfig, logger: Logger, metrics: MetricsService): void {
  const openFiles = readOpenFileLimit();
  const safe = defaultMaxConnections(openFiles);
  const total = config.HTTP_MAX_CONNECTIONS ?? safe;
  if (openFiles === undefined) {
    logger.warn(`could not read the open-file limit; assuming ${ASSUMED_OPEN_FILE_LIMIT}: set HTTP_MAX_CONNECTIONS to say how many connections to take`);
  } else if (total > safe) {
    logger.warn(
      `HTTP_MAX_CONNECTIONS=${total} leaves too few of the ${openFiles} open files for the database and files being served (${safe} would); raise the limit (ulimit -n) or lower the cap`,
    );
  }
  // A trusted proxy's connections carry many clients: a per-address cap would cap them all together.
  // With a hop count every peer may be the proxy (the trust function says so for any address at
  // hop 0), so the cap is then off; with a list of proxies, only those are exempt.
  const trust = config.trustProxy;
  const caps = {
    perAddress: config.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
    total,
    loopbackReserve: LOOPBACK_RESERVE,
    perAddressExempt: (address: string) => trust(address, 0),
  };
  const log = refusalLog(logger);
  const counts = applyConnectionCaps(server, caps, (reason, address) => {
    metrics.observeRefusedConnection(reason);
    log(reason, address);
  });
  metrics.watchConnections(counts);
}

/** A warning for the first refused connection, then at most one a minute with the counts since: a flood must not flood the log. */
function refusalLog(logger: Logger): (reason: RefusalReason, address: string) => void {
  let quietUntil = 0;
  const counts: Record<RefusalReason, number> = { per_address: 0, total: 0 };
  return (reason, address) => {
    counts[reason]++;
    const now = Date.now();
    if (now < quietUntil) return;
    quietUntil = now + 60_000;
    // The network, not the address, as in request logs (docs/security.md, "What request logs keep").
    const network = addressPrefix(address);
    logger.warn({ refused: { ...counts }, lastNetwork: network }, `connections refused at the connection caps (last: ${reason} from ${network})`);
    counts.per_address = 0;
    counts.total = 0;
  };
}
