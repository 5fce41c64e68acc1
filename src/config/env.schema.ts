import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateBy, validateSync } from 'class-validator';

import { parseTrustProxy } from './trust-proxy';

/**
 * Several decorators applied bottom-up, as written one per line (the same one line as
 * common/decorator-stack.ts, repeated: config/ is the lowest layer and imports nothing of src/).
 */
const decoratorStack = (...decorators: PropertyDecorator[]): PropertyDecorator => applyDecorators(...[...decorators].reverse());

const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes', 'on'].includes(String(value).toLowerCase());
const toNumber = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/** A whole number of at least `min` (and at most `max`); unset takes the default. */
const IntVar = (min: number, max?: number) => decoratorStack(Transform(toInt), IsInt(), Min(min), ...(max === undefined ? [] : [Max(max)]));
/** A whole number within `min`..`max`, or unset. */
const OptionalIntVar = (min: number, max: number) => decoratorStack(Transform(toInt), IsOptional(), IsInt(), Min(min), Max(max));
/** `1`, `true`, `yes` or `on` (any case) is true; other values false; unset takes the default. */
const BoolVar = () => decoratorStack(Transform(toBool), IsBoolean());
/** A value that may be unset (an empty one counts as unset); a set one must pass `rules`. */
const OptionalVar = (...rules: PropertyDecorator[]) => decoratorStack(Transform(emptyToUndefined), IsOptional(), ...rules);
/** An HMAC key or bearer token that may be unset (then generated, or not needed), never a short one. */
const SecretVar = () => OptionalVar(IsString(), MinLength(32, { message: '$property must be at least 32 characters' }));
const NonEmptyString = () => decoratorStack(IsString(), MinLength(1));
const StripePriceVar = () => OptionalVar(Matches(/^price_[A-Za-z0-9]+$/, { message: '$property must be a Stripe price id (price_…)' }));

/** A leads key: `<keyId>:<base64 or base64url of exactly 32 bytes>`. */
const LEAD_KEY = String.raw`[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/_-]{43}=?`;

/** One DNS server: IPv4 with an optional port, bare IPv6, or [IPv6] with an optional port. */
const DNS_SERVER = String.raw`(?:\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|[0-9a-fA-F:]*:[0-9a-fA-F:.]*|\[[0-9a-fA-F:.]+\](?::\d{1,5})?)`;
const DNS_SERVERS_PATTERN = new RegExp(`^${DNS_SERVER}(?:,${DNS_SERVER})*$`);

/**
 * Every environment variable the service reads, with its default.
 * `.env.example` mirrors this class; keep them in step.
 */
export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @IntVar(0, 65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @NonEmptyString()
  DATA_DIR = './data';

  /** Unset: an embedded PostgreSQL is started under $DATA_DIR/postgres. */
  @OptionalVar(Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' }))
  DATABASE_URL?: string;

  @IntVar(1, 65535)
  EMBEDDED_POSTGRES_PORT = 54329;

  /**
   * Root only: where the embedded server's binaries are copied, and its cluster placed
   * (linked from $DATA_DIR/postgres), when the `postgres` user cannot reach them in place.
   */
  @NonEmptyString()
  EMBEDDED_POSTGRES_RUNTIME_DIR = '/var/lib/statichost';

  @IntVar(1, 200)
  DATABASE_POOL_SIZE = 10;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** Largest JSON request body, in bytes (inline deploys carry file contents). */
  @IntVar(1024)
  BODY_LIMIT_BYTES = 50 * 1024 * 1024;

  /**
   * Largest JSON body read before the caller is known (register, login and refresh
   * fit easily); a larger one is read only for a valid bearer credential.
   */
  @IntVar(1024)
  ANONYMOUS_BODY_LIMIT_BYTES = 16 * 1024;

  /** A request's headers must all arrive within this (slow-header clients are cut off with 408). */
  @IntVar(100)
  HTTP_HEADERS_TIMEOUT_MS = 20_000;

  /**
   * A whole request, body included, must arrive within this (408 otherwise): the bound on
   * a body trickled slowly. Needs ~4 Mbit/s for a 50 MB deploy at the default; raise it
   * for big uploads over slow links.
   */
  @IntVar(100)
  HTTP_REQUEST_TIMEOUT_MS = 120_000;

  /**
   * A connection that moves no bytes for this long while its request body is still
   * arriving gets 408 and is closed; so is one whose client stops reading an answer.
   * The server's own work on a request (e.g. a long deploy) is never cut by it.
   */
  @IntVar(100)
  HTTP_IDLE_TIMEOUT_MS = 30_000;

  /** An idle keep-alive connection is closed after this. */
  @IntVar(100)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 5_000;

  /**
   * Open connections one client address (an IPv6 /64) may hold; the newest past it is
   * closed at once. 0: no per-address cap. Not applied to trusted proxies (TRUST_PROXY: with a
   * hop count, to no peer; with a list, to the listed ones), which should cap per client themselves.
   */
  @IntVar(0)
  HTTP_MAX_CONNECTIONS_PER_ADDRESS = 2000;

  /**
   * Open connections in all; the newest past it is closed at once, except a few from
   * loopback for the health check and the TLS ask. Unset: three quarters of the process's
   * open-file limit (read at start), the rest left for the database, files and storage.
   */
  @OptionalIntVar(1, 1_000_000)
  HTTP_MAX_CONNECTIONS?: number;

  /** Platform ceiling for one deployed file, in bytes (plans may set lower limits). */
  @IntVar(1)
  MAX_FILE_BYTES = 100 * 1024 * 1024;

  @IntVar(1)
  MAX_FILES_PER_DEPLOYMENT = 20_000;

  /** How often the maintenance jobs run: TTL expiry, blob collection, the idempotency-key and gate-counter purges, and others (0 disables them, e.g. in tests that drive them by hand). */
  @IntVar(0)
  SWEEP_INTERVAL_SECONDS = 60;

  /**
   * Password hashes (scrypt) computed at once per process, and how many more may wait;
   * past that, logins and gate passwords answer 503 with Retry-After. scrypt shares
   * libuv's threadpool (UV_THREADPOOL_SIZE, 4 by default) with file I/O: keep this
   * below the pool size so serving files never waits behind a login flood.
   */
  @IntVar(1)
  PASSWORD_HASH_CONCURRENCY = 2;

  @IntVar(0)
  PASSWORD_HASH_QUEUE = 64;

  /**
   * log2 of scrypt's N for password hashes written from now on (accounts and gate
   * passwords): each step doubles a hash's time and memory (15: 32 MiB, about 0.1 s of a
   * core). Stored hashes carry their own parameters and keep verifying. Below 15 is for
   * test suites only, and warned of at start.
   */
  @IntVar(10, 17)
  PASSWORD_HASH_COST = 15;

  /**
   * Temp objects (`objects/.tmp`) and upload spools (`uploads/`) not written for this long
   * are crash leftovers, removed at start and by the sweep. Writes in progress keep their
   * file fresh, so this only needs to exceed the longest pause within one write.
   */
  @IntVar(60)
  STALE_TEMP_FILE_SECONDS = 900;

  /** A stored object unreferenced for this long may be deleted; it bounds how long one deploy may take. */
  @IntVar(0)
  BLOB_GC_GRACE_SECONDS = 3600;

  @IsIn(['local', 's3'])
  STORAGE_DRIVER: 'local' | 's3' = 'local';

  @OptionalVar(Matches(/^https?:\/\//, { message: 'S3_ENDPOINT must be an http:// or https:// URL' }))
  S3_ENDPOINT?: string;

  @OptionalVar(IsString())
  S3_BUCKET?: string;

  @IsString()
  S3_REGION = 'us-east-1';

  @OptionalVar(IsString())
  S3_ACCESS_KEY_ID?: string;

  @OptionalVar(IsString())
  S3_SECRET_ACCESS_KEY?: string;

  @BoolVar()
  S3_FORCE_PATH_STYLE = false;

  /** Objects are stored under this prefix (e.g. `statichost/`), so one bucket can hold other data too. */
  @OptionalVar(
    Matches(/^[a-z0-9][a-z0-9_.-]*(\/[a-z0-9][a-z0-9_.-]*)*\/?$/, {
      message: 'S3_KEY_PREFIX must be lowercase letters, digits, and . _ - in /-separated parts, e.g. statichost/',
    }),
  )
  S3_KEY_PREFIX?: string;

  /** Scheme, domain and port used to build public site URLs (never taken from a request). */
  @IsIn(['http', 'https'])
  PUBLIC_SCHEME: 'http' | 'https' = 'http';

  @Matches(/^[a-z0-9.-]+$/, { message: 'SITES_DOMAIN must be a lowercase host name' })
  SITES_DOMAIN = 'localhost';

  /** Comma-separated hosts that always reach the API (e.g. api.example.com). Unset: every host that is not a site. */
  @OptionalVar(Matches(/^[a-z0-9.:[\]-]+(,[a-z0-9.:[\]-]+)*$/, { message: 'API_HOSTS must be a comma-separated list of lowercase host names' }))
  API_HOSTS?: string;

  /**
   * Which hops of X-Forwarded-For are our proxies (src/config/trust-proxy.ts): `false`,
   * `true` (one hop: the shipped Caddyfile), a hop count, or a comma list of proxy addresses/CIDRs.
   */
  @ValidateBy({
    name: 'trustProxy',
    validator: {
      validate: (value) => typeof value === 'string' && typeof parseTrustProxy(value) === 'function',
      defaultMessage: (args) => (typeof args?.value === 'string' ? String(parseTrustProxy(args.value)) : 'TRUST_PROXY must be a string'),
    },
  })
  TRUST_PROXY = 'false';

  /**
   * Bearer token of the internal endpoints (`/internal/tls/allowed`) for callers that are
   * not on loopback; unset: loopback only.
   */
  @SecretVar()
  INTERNAL_TOKEN?: string;

  /**
   * Certificate asks (`/internal/tls/allowed`) per minute that may look a name up in the
   * database, per instance; past it the ask answers 429 (the proxy then issues nothing).
   * Refused names are remembered for a minute and cost nothing.
   */
  @IntVar(1)
  TLS_ASK_LOOKUPS_PER_MINUTE = 120;

  /** HMAC key of gate cookies; unset: generated once into $DATA_DIR/gate-cookie.secret. */
  @SecretVar()
  GATE_COOKIE_SECRET?: string;

  @IntVar(60)
  GATE_COOKIE_TTL_SECONDS = 7 * 24 * 60 * 60;

  /** Wrong gate passwords allowed per client address and project within the window, then 429. */
  @IntVar(1)
  GATE_MAX_ATTEMPTS = 5;

  @IntVar(1)
  GATE_ATTEMPT_WINDOW_SECONDS = 15 * 60;

  /**
   * Keys that seal leads' emails: `<keyId>:<base64 32-byte key>`, comma-separated. The
   * first encrypts, all decrypt (add a new key in front, then `npm run leads:rotate`).
   * Unset: one key generated once into $DATA_DIR/leads-encryption.keys (0600).
   */
  @OptionalVar(
    Matches(new RegExp(`^${LEAD_KEY}(?:,${LEAD_KEY})*$`), {
      message: 'LEADS_ENCRYPTION_KEYS must be comma-separated <keyId>:<base64 of 32 bytes>, e.g. k2:<44 base64 characters>,k1:<...>',
    }),
  )
  LEADS_ENCRYPTION_KEYS?: string;

  /**
   * Master key of the leads' blind indexes (dedupe and search), `<keyId>:<base64 32-byte key>`;
   * each workspace gets its own keys derived from it. Unset: generated once into
   * $DATA_DIR/leads-index.key (0600). Changing it needs `npm run leads:rotate` (reindex).
   */
  @OptionalVar(Matches(new RegExp(`^${LEAD_KEY}$`), { message: 'LEADS_INDEX_KEY must be <keyId>:<base64 of 32 bytes>' }))
  LEADS_INDEX_KEY?: string;

  /** Email-gate submissions allowed per client address and site within the window, then 429. */
  @IntVar(1)
  LEADS_CAPTURE_MAX_PER_WINDOW = 20;

  @IntVar(1)
  LEADS_CAPTURE_WINDOW_SECONDS = 10 * 60;

  /** Form submissions on hosted sites (issue 30, docs/forms.md): fields per submission, then 413. */
  @IntVar(1)
  FORMS_MAX_FIELDS = 100;

  /** Bytes of one field's value, then 413. */
  @IntVar(1)
  FORMS_MAX_FIELD_BYTES = 32 * 1024;

  /** Bytes of a whole submission's body, then 413. */
  @IntVar(1)
  FORMS_MAX_TOTAL_BYTES = 128 * 1024;

  /** Submissions per visitor (the analytics visitor hash) and site within the window; as many again are kept as spam, then 429. */
  @IntVar(1)
  FORMS_RATE_LIMIT_MAX = 5;

  /**
   * Submissions per client address (IPv4, or an IPv6 /64) and site within the window,
   * whatever user agents they carry: a bot changing its user agent is a new visitor to
   * FORMS_RATE_LIMIT_MAX, not to this. Several times the visitor's, so an office behind one
   * NAT posting a contact form does not run into it. As many again are kept as spam, then 429.
   */
  @IntVar(1)
  FORMS_RATE_LIMIT_ADDRESS_MAX = 20;

  @IntVar(1)
  FORMS_RATE_LIMIT_WINDOW_SECONDS = 60;

  /** Memory for small site files, in bytes, per instance. */
  @IntVar(0)
  SITE_FILE_CACHE_BYTES = 128 * 1024 * 1024;

  /**
   * The site router's memory, in MB (fractions allowed): site states, manifests, unknown
   * hosts and compressed-copy knowledge share it. Unset: an eighth of the memory the
   * instance may use (cgroup limit or machine), between 32 and 2048 MB (docs/scaling.md).
   */
  @OptionalVar(Transform(toNumber), IsNumber({ allowNaN: false, allowInfinity: false }), Min(0.01), Max(1024 * 1024))
  SITE_CACHE_MB?: number;

  /**
   * Sites a starting instance loads before their visitors ask (issue 35): the hosts served
   * most recently across instances, kept in PostgreSQL by each instance about once a
   * minute and at shutdown. 0 turns the list and the warm start off.
   */
  @IntVar(0, 100_000)
  SITE_WARM_START_HOSTS = 1000;

  /** Files up to this size are kept in memory; larger ones stream from storage. */
  @IntVar(0)
  SITE_FILE_CACHE_MAX_FILE_BYTES = 1024 * 1024;

  /**
   * A MaxMind-format (`.mmdb`) country or city database (GeoLite2, GeoIP2, DB-IP…), read
   * once at start-up, for `_redirects` rules with `Country=`. Unset: those rules never
   * match (deploys warn). A file that cannot be read stops the app at start-up.
   */
  @OptionalVar(IsString())
  GEOIP_DATABASE?: string;

  /** Port shown in public URLs; unset means the default port of PUBLIC_SCHEME... or PORT when SITES_DOMAIN is localhost. */
  @OptionalIntVar(1, 65535)
  PUBLIC_PORT?: number;

  /**
   * HMAC key for the dashboard's access JWTs. Unset: generated once into
   * $DATA_DIR/jwt.secret and reused (set it when instances do not share DATA_DIR).
   */
  @SecretVar()
  JWT_SECRET?: string;

  /** Lifetime of an access JWT, in seconds. */
  @IntVar(1, 86400)
  JWT_ACCESS_TTL_SECONDS = 900;

  /** Lifetime of a refresh token, in days; each refresh starts a new one. */
  @IntVar(1, 365)
  REFRESH_TOKEN_TTL_DAYS = 30;

  /**
   * Seconds after a refresh during which the refresh token it replaced may be presented once
   * more and get another pair, instead of ending the session as a stolen copy would: the
   * answer of a refresh is lost when a tab reloads or closes mid-request, and the browser
   * keeps the old cookie. 0 ends the session on any second use (docs/security.md).
   */
  @IntVar(0, 300)
  REFRESH_REUSE_GRACE_SECONDS = 30;

  /**
   * DNS servers that custom-domain verification asks (comma-separated IPs, each
   * with an optional port: `1.1.1.1,[2606:4700::1111]:53`). Unset: the system's resolvers.
   * A Git repository's host must pass the address policy with their answers too, beside
   * the system resolver's (src/git/repository-url.ts).
   */
  @OptionalVar(
    Matches(DNS_SERVERS_PATTERN, { message: 'DNS_SERVERS must be comma-separated IP addresses with optional ports, e.g. 1.1.1.1,127.0.0.1:5353,[::1]:53' }),
  )
  DNS_SERVERS?: string;

  /** Longest a custom-domain DNS check (or a repository host's lookup) may take, in milliseconds; past it verification answers 503. */
  @IntVar(100, 60_000)
  DNS_TIMEOUT_MS = 5000;

  /** A verified custom domain is checked again once its last check is this old (the job runs every SWEEP_INTERVAL_SECONDS). */
  @IntVar(60)
  DOMAIN_RECHECK_INTERVAL_SECONDS = 24 * 60 * 60;

  /** A verified custom domain whose checks fail for this long without a break becomes `failed` and stops serving. */
  @IntVar(0)
  DOMAIN_FAIL_AFTER_HOURS = 72;

  /**
   * Plan table overrides as JSON, e.g. `{"free":{"projects":5,"storageBytes":"1 GB"}}`
   * (README "Billing"); null means unlimited. Unset: the built-in table.
   */
  @OptionalVar(IsString())
  PLANS_JSON?: string;

  /** A JSON file with plan table overrides (same form as PLANS_JSON; set at most one of the two). */
  @OptionalVar(IsString())
  PLANS_FILE?: string;

  /** Who takes payments for paid plans: `local` (charges nothing; self-hosting) or `stripe`. */
  @IsIn(['local', 'stripe'])
  PAYMENT_PROVIDER: 'local' | 'stripe' = 'local';

  /** Stripe secret (or restricted) key; required with PAYMENT_PROVIDER=stripe. */
  @OptionalVar(Matches(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, { message: 'STRIPE_SECRET_KEY must be a Stripe secret key (sk_live_…, sk_test_… or rk_…)' }))
  STRIPE_SECRET_KEY?: string;

  /** Stripe price ids of each paid tier and interval; all four are required with PAYMENT_PROVIDER=stripe. */
  @StripePriceVar()
  STRIPE_PRICE_PRO_MONTH?: string;

  @StripePriceVar()
  STRIPE_PRICE_PRO_YEAR?: string;

  @StripePriceVar()
  STRIPE_PRICE_TEAM_MONTH?: string;

  @StripePriceVar()
  STRIPE_PRICE_TEAM_YEAR?: string;

  /** Where the Stripe SDK sends requests; only for tests against a stand-in server. Unset: api.stripe.com:443 over https. */
  @OptionalVar(IsString())
  STRIPE_API_HOST?: string;

  @OptionalIntVar(1, 65535)
  STRIPE_API_PORT?: number;

  @OptionalVar(IsIn(['http', 'https']))
  STRIPE_API_PROTOCOL?: 'http' | 'https';

  /**
   * Issue 31, metering: the `event_name` of the Stripe Billing Meter that bandwidth overage
   * (bytes over a paid plan's limit, spend cap off) is reported to. Unset: no overage is reported.
   */
  @OptionalVar(Matches(/^[A-Za-z0-9_.:-]{1,100}$/, { message: 'STRIPE_METER_EVENT_NAME must be a Stripe meter event name (letters, digits, _ . : -)' }))
  STRIPE_METER_EVENT_NAME?: string;

  /** How often one instance reports new bandwidth overage to the payment provider; 0 stops the timer (tests run it by hand). */
  @IntVar(0, 86_400)
  OVERAGE_REPORT_INTERVAL_SECONDS = 3600;

  /** How often each instance re-reads which workspaces the spend cap pauses (the longest a cap change or an upgrade takes to reach another instance); 0 stops the timer. */
  @IntVar(0, 3600)
  SPEND_CAP_REFRESH_SECONDS = 10;

  /**
   * The signing secret (`whsec_…`) of the Stripe webhook endpoint that posts to
   * POST /billing/stripe/webhook (docs/billing.md). Unset: that route answers 404 and
   * nothing hears from Stripe after a plan starts.
   */
  @OptionalVar(Matches(/^whsec_[A-Za-z0-9]+$/, { message: 'STRIPE_WEBHOOK_SECRET must be a Stripe webhook signing secret (whsec_…)' }))
  STRIPE_WEBHOOK_SECRET?: string;

  /** Days a workspace whose renewal failed (`past_due`) keeps its paid plan while the provider retries; then it is back on free. */
  @IntVar(0)
  BILLING_GRACE_DAYS = 7;

  /**
   * Called (JSON POST, signed) after every change to what a site serves, with the hosts
   * and cache tags to purge from a CDN in front. Unset: no calls.
   */
  @OptionalVar(Matches(/^https?:\/\/[^\s]+$/, { message: 'SITE_CHANGE_WEBHOOK_URL must be an http:// or https:// URL' }))
  SITE_CHANGE_WEBHOOK_URL?: string;

  /** HMAC-SHA256 key of the webhook's X-Statichost-Signature; required with SITE_CHANGE_WEBHOOK_URL. */
  @SecretVar()
  SITE_CHANGE_WEBHOOK_SECRET?: string;

  /**
   * The CDN tag headers on every site answer: `Cache-Tag` (Cloudflare, comma-separated) and
   * `Surrogate-Key` (Fastly, space-separated), comma-separated, or `none`. Unset: both when
   * SITE_CHANGE_WEBHOOK_URL is set (a CDN in front purges by them), none otherwise (they only
   * mean something to a CDN, which strips them; without one they are bytes on every answer).
   */
  @OptionalVar(
    Matches(/^(none|(cache-tag|surrogate-key)(,(cache-tag|surrogate-key))*)$/i, {
      message: 'SITE_CACHE_TAG_HEADERS must be none, or Cache-Tag and/or Surrogate-Key separated by a comma',
    }),
  )
  SITE_CACHE_TAG_HEADERS?: string;

  /**
   * Strict-Transport-Security max-age on every API and site answer when PUBLIC_SCHEME=https
   * (0: no header). Browsers then never try http for the API host and site hosts.
   */
  @IntVar(0)
  HSTS_MAX_AGE_SECONDS = 31_536_000;

  /** Prometheus metrics at /metrics (direct loopback or METRICS_TOKEN); false: no counting at all. */
  @BoolVar()
  METRICS_ENABLED = true;

  /**
   * Bearer token of /metrics for a scraper that is not a direct loopback caller; unset:
   * loopback only. Its own token, not INTERNAL_TOKEN: the scraper's credential must not
   * also open the TLS ask (which decides what certificates Caddy requests).
   */
  @SecretVar()
  METRICS_TOKEN?: string;

  /** Site analytics (src/analytics): false counts nothing and keeps no visitor key. */
  @BoolVar()
  ANALYTICS_ENABLED = true;

  /** How often each instance writes its in-memory counts (a crash loses at most this much); 0 stops the timer (tests flush by hand). */
  @IntVar(0, 3600)
  ANALYTICS_FLUSH_SECONDS = 10;

  /** Hourly analytics rows older than this are deleted (daily rows stay). */
  @IntVar(1)
  ANALYTICS_HOURLY_RETENTION_DAYS = 90;

  /** Daily analytics rows and visitor sketches older than this are deleted; 0 keeps them for ever. */
  @IntVar(0)
  ANALYTICS_DAILY_RETENTION_DAYS = 0;

  /**
   * Keys (paths, pages, referrers, 404 paths) kept per project, kind and completed hour or
   * day; the retention job folds the long tail into one `(other)` row.
   */
  @IntVar(10)
  ANALYTICS_KEYS_KEPT = 500;

  /**
   * The same per completed hour: hourly rows serve the series (whose totals never fold)
   * and the top lists of partial days only, so they keep far fewer keys.
   */
  @IntVar(10)
  ANALYTICS_HOURLY_KEYS_KEPT = 50;

  /** How often the analytics retention job runs (one instance at a time); 0 disables it. */
  @IntVar(0)
  ANALYTICS_RETENTION_INTERVAL_SECONDS = 3600;

  /** How often queued messages (webhook calls) are sent; 0 stops the timer (tests send by hand). */
  @IntVar(0)
  OUTBOX_INTERVAL_SECONDS = 2;

  /** Tries before a queued message is marked dead (backoff from 1 s, doubling, capped at an hour). */
  @IntVar(1, 100)
  OUTBOX_MAX_ATTEMPTS = 12;

  /**
   * Where mail goes: `smtp://user:pass@host:port` or `smtps://…` (nodemailer). Unset: each
   * message is written as an .eml file under $DATA_DIR/mail/ and its links logged at info.
   */
  @OptionalVar(Matches(/^smtps?:\/\/[^\s]+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587' }))
  SMTP_URL?: string;

  /** The From of every mail, e.g. `statichost <no-reply@example.com>`. Unset: no-reply@ the API's host. */
  @OptionalVar(IsString())
  MAIL_FROM?: string;

  /** The product's name in mail subjects and bodies. */
  @NonEmptyString()
  PRODUCT_NAME = 'statichost';

  /**
   * Public base URL of the API and dashboard, used in mailed links (e.g. https://api.example.com).
   * Unset: PUBLIC_SCHEME://<first API_HOSTS entry, else SITES_DOMAIN><:port>.
   */
  @OptionalVar(Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'PUBLIC_API_URL must be an http:// or https:// URL' }))
  PUBLIC_API_URL?: string;

  /** true: paid plans and sending or accepting invitations wait until the account's email is verified. */
  @BoolVar()
  REQUIRE_VERIFIED_EMAIL = false;

  /** Mail notifications: an `immediate` digest goes out this long after its first new lead or submission, with everything that came meanwhile. */
  @IntVar(0, 86_400)
  NOTIFICATIONS_DIGEST_WINDOW_SECONDS = 120;

  /** Mail notifications: the hour (UTC) of the `daily` digest, with everything that came in the day before. */
  @IntVar(0, 23)
  NOTIFICATIONS_DAILY_DIGEST_HOUR = 8;

  /** HMAC key of the one-click unsubscribe links of notification mails; unset: generated once into $DATA_DIR/notifications-unsubscribe.secret. */
  @SecretVar()
  NOTIFICATIONS_UNSUBSCRIBE_SECRET?: string;

  /** Failed logins allowed per account from one client address within LOGIN_FAILURE_WINDOW_SECONDS, then 429. */
  @IntVar(1)
  LOGIN_MAX_FAILURES_PER_ADDRESS = 5;

  @IntVar(1)
  LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

  /** Failed logins allowed per account from all addresses together within LOGIN_ACCOUNT_WINDOW_SECONDS (the slower global limit). */
  @IntVar(1)
  LOGIN_MAX_FAILURES_PER_ACCOUNT = 50;

  @IntVar(1)
  LOGIN_ACCOUNT_WINDOW_SECONDS = 24 * 60 * 60;

  /**
   * Failed logins allowed from one client address on all accounts together within
   * LOGIN_ACROSS_ACCOUNTS_WINDOW_SECONDS (password spraying), then 429 for every login from
   * it. Generous and short: an office behind one NAT shares it (docs/security.md).
   */
  @IntVar(1)
  LOGIN_MAX_FAILURES_ACROSS_ACCOUNTS = 30;

  @IntVar(1)
  LOGIN_ACROSS_ACCOUNTS_WINDOW_SECONDS = 10 * 60;

  /** Mail-sending account requests (reset, verification resend, email change) allowed per account within ACCOUNT_MAIL_WINDOW_SECONDS. */
  @IntVar(1)
  ACCOUNT_MAIL_MAX_PER_WINDOW = 5;

  /** The same requests and registrations allowed per client address, all accounts together, within ACCOUNT_MAIL_WINDOW_SECONDS. */
  @IntVar(1)
  ACCOUNT_MAIL_MAX_PER_ADDRESS = 20;

  @IntVar(1)
  ACCOUNT_MAIL_WINDOW_SECONDS = 60 * 60;

  // --- Builds from Git (docs/builds.md) ---

  /**
   * Where builds run: `podman` or `docker` (a fresh sandboxed container per build) or
   * `process` (a child process with no isolation: development and tests only, refused
   * with NODE_ENV=production). Unset: podman when on PATH, else docker, else builds are
   * unavailable (settings can be saved; starting a build answers 503 builds_unavailable).
   */
  @OptionalVar(IsIn(['podman', 'docker', 'process']))
  BUILD_RUNNER?: 'podman' | 'docker' | 'process';

  /** Builds this app process runs at once (its in-process builder); 0: none (builders run elsewhere, `npm run builder`). */
  @IntVar(0, 64)
  BUILD_CONCURRENCY = 1;

  /** A build still running after this long ends as `timed_out`. */
  @IntVar(10)
  BUILD_TIMEOUT_SECONDS = 900;

  /** The container image builds run in (podman/docker runners). */
  @NonEmptyString()
  BUILD_IMAGE = 'docker.io/library/node:22-bookworm-slim';

  /** CPUs a build container may use (podman/docker --cpus). */
  @decoratorStack(Transform(toNumber), IsNumber(), Min(0.1), Max(256))
  BUILD_CPUS = 1;

  /** Memory of a build container, MiB (podman/docker --memory). */
  @IntVar(64)
  BUILD_MEMORY_MB = 2048;

  /** Processes a build container may run at once (podman/docker --pids-limit). */
  @IntVar(16)
  BUILD_PIDS_LIMIT = 1024;

  /**
   * A CA bundle (PEM file on the builder's machine) trusted inside builds, for companies
   * whose outbound HTTPS goes through an inspecting proxy: mounted read-only, with
   * NODE_EXTRA_CA_CERTS and SSL_CERT_FILE pointing at it.
   */
  @OptionalVar(IsString())
  BUILD_CA_BUNDLE?: string;

  /** Largest build log kept (bytes); past it the log says it was cut and keeps the last lines out. */
  @IntVar(4096)
  BUILD_LOG_MAX_BYTES = 4 * 1024 * 1024;

  /** A running build whose builder has not been heard from for this long is failed (the builder died). */
  @IntVar(5)
  BUILD_LEASE_SECONDS = 60;

  /** Scratch directory of builders (checkouts, caches being restored); unset: <DATA_DIR>/builds. */
  @OptionalVar(IsString())
  BUILD_WORK_DIR?: string;

  /** true: repositories may be on loopback, private and link-local addresses, and on http:// (tests, a forge on the LAN). */
  @BoolVar()
  GIT_ALLOW_PRIVATE_ADDRESSES = false;

  /** Largest forge webhook body read (bytes); a bigger one is refused with 413 before its signature is checked. */
  @IntVar(1024)
  GIT_WEBHOOK_MAX_BYTES = 2 * 1024 * 1024;

  /**
   * TTL of the deployments that branch and pull-request builds make (`7d`, `24h`, `forever`),
   * in the deployments' own TTL form (src/shared/ttl.ts parses it again when used).
   */
  @IsString()
  @Matches(/^(forever|[1-9][0-9]*[hd])$/, { message: 'PREVIEW_TTL must be "<n>h", "<n>d" or "forever", e.g. "7d"' })
  PREVIEW_TTL = '7d';

  /** true: `_redirects` proxy rules may reach loopback, private and link-local addresses (tests, an API on the LAN). */
  @BoolVar()
  PROXY_ALLOW_PRIVATE_ADDRESSES = false;

  /** Largest request body a proxy rule forwards (bytes); past it the visitor gets 413 and the origin's request is cut. */
  @IntVar(0)
  PROXY_MAX_BODY_BYTES = 10 * 1024 * 1024;

  /** Proxied requests of one site under way at once; past it 503 with Retry-After. */
  @IntVar(1)
  PROXY_MAX_CONCURRENT_PER_SITE = 100;

  /** Longest a proxy rule's connection to its origin may take to open (ms); past it 504. */
  @IntVar(1, 600_000)
  PROXY_CONNECT_TIMEOUT_MS = 5000;

  /** Longest an origin may take to start answering (ms; 504 past it), and longest its answer may then pause (the visitor's connection is cut). */
  @IntVar(1, 3_600_000)
  PROXY_TIMEOUT_MS = 30_000;

  /** true: outgoing webhooks may go to loopback, private and link-local addresses, and over plain `http` (tests, a receiver on the LAN). */
  @BoolVar()
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES = false;

  /** Audit-log entries older than this many days are deleted (each workspace's chain keeps where it was cut); the job runs every SWEEP_INTERVAL_SECONDS. */
  @IntVar(1)
  AUDIT_RETENTION_DAYS = 365;
  /**
   * Single sign-on starts (GET /auth/sso/start) allowed per client address within
   * SSO_START_WINDOW_SECONDS: each one stores a pending sign-in, so an unthrottled loop
   * fills a table. Generous, as a company's people arrive through one NAT at nine o'clock.
   */
  @IntVar(1)
  SSO_START_MAX_PER_ADDRESS = 120;

  @IntVar(1)
  SSO_START_WINDOW_SECONDS = 10 * 60;

  /** true: SSO issuers (OpenID providers) may be on loopback, private and link-local addresses, and on plain `http` (tests, a provider on the LAN). */
  @BoolVar()
  SSO_ALLOW_PRIVATE_ADDRESSES = false;
}

export function validateEnv(raw: Record<string, unknown>): EnvironmentVariables {
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false, whitelist: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => {
      // Never echo a secret, even a malformed one, to the console or a log collector.
      const secret = /SECRET|KEY|PASSWORD|TOKEN|DATABASE_URL/.test(e.property);
      const value = secret ? '[redacted]' : (raw as Record<string, unknown>)[e.property];
      const why = Object.values(e.constraints ?? {}).join('; ');
      return `  ${e.property}=${JSON.stringify(value)}: ${why}`;
    });
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (env.SITE_CHANGE_WEBHOOK_URL && !env.SITE_CHANGE_WEBHOOK_SECRET) {
    throw new Error('Invalid configuration:\n  SITE_CHANGE_WEBHOOK_SECRET: required when SITE_CHANGE_WEBHOOK_URL is set (receivers check the signature)');
  }
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    throw new Error('Invalid configuration:\n  HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (headers are part of the request)');
  }
  if (env.STORAGE_DRIVER === 's3' && !env.S3_BUCKET) {
    throw new Error('Invalid configuration:\n  S3_BUCKET: required when STORAGE_DRIVER=s3');
  }
  return env;
}
