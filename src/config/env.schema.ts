import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';

const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes', 'on'].includes(String(value).toLowerCase());
const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/**
 * Every environment variable the service reads, with its default.
 * `.env.example` mirrors this class; keep them in step.
 */
export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsString()
  @MinLength(1)
  DATA_DIR = './data';

  /** Unset: an embedded PostgreSQL is started under $DATA_DIR/postgres. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  EMBEDDED_POSTGRES_PORT = 54329;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** Largest JSON request body, in bytes (inline deploys carry file contents). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 50 * 1024 * 1024;

  /** Platform ceiling for one deployed file, in bytes (plans may set lower limits). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  MAX_FILE_BYTES = 100 * 1024 * 1024;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  MAX_FILES_PER_DEPLOYMENT = 20_000;

  /** How often the expiry and garbage-collection job runs (0 disables it, e.g. in tests that drive it by hand). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SWEEP_INTERVAL_SECONDS = 60;

  /** A stored object unreferenced for this long may be deleted; it bounds how long one deploy may take. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  BLOB_GC_GRACE_SECONDS = 3600;

  @IsIn(['local', 's3'])
  STORAGE_DRIVER: 'local' | 's3' = 'local';

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\//, { message: 'S3_ENDPOINT must be an http:// or https:// URL' })
  S3_ENDPOINT?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  S3_BUCKET?: string;

  @IsString()
  S3_REGION = 'us-east-1';

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  S3_ACCESS_KEY_ID?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  @Transform(toBool)
  @IsBoolean()
  S3_FORCE_PATH_STYLE = false;

  /** Objects are stored under this prefix (e.g. `statichost/`), so one bucket can hold other data too. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9_.-]*(\/[a-z0-9][a-z0-9_.-]*)*\/?$/, {
    message: 'S3_KEY_PREFIX must be lowercase letters, digits, and . _ - in /-separated parts, e.g. statichost/',
  })
  S3_KEY_PREFIX?: string;

  /** Scheme, domain and port used to build public site URLs (never taken from a request). */
  @IsIn(['http', 'https'])
  PUBLIC_SCHEME: 'http' | 'https' = 'http';

  @Matches(/^[a-z0-9.-]+$/, { message: 'SITES_DOMAIN must be a lowercase host name' })
  SITES_DOMAIN = 'localhost';

  /** Comma-separated hosts that always reach the API (e.g. api.example.com). Unset: every host that is not a site. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[a-z0-9.:\[\]-]+(,[a-z0-9.:\[\]-]+)*$/, { message: 'API_HOSTS must be a comma-separated list of lowercase host names' })
  API_HOSTS?: string;

  /** Trust X-Forwarded-For for the client address (only behind a proxy that sets it). */
  @Transform(toBool)
  @IsBoolean()
  TRUST_PROXY = false;

  /** HMAC key of gate cookies; unset: generated once into $DATA_DIR/gate-cookie.secret. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'GATE_COOKIE_SECRET must be at least 32 characters' })
  GATE_COOKIE_SECRET?: string;

  @Transform(toInt)
  @IsInt()
  @Min(60)
  GATE_COOKIE_TTL_SECONDS = 7 * 24 * 60 * 60;

  /** Wrong gate passwords allowed per client address and project within the window, then 429. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  GATE_MAX_ATTEMPTS = 5;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  GATE_ATTEMPT_WINDOW_SECONDS = 15 * 60;

  /** Memory for small site files, in bytes, per instance. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SITE_FILE_CACHE_BYTES = 128 * 1024 * 1024;

  /** Files up to this size are kept in memory; larger ones stream from storage. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SITE_FILE_CACHE_MAX_FILE_BYTES = 1024 * 1024;

  /** Port shown in public URLs; unset means the default port of PUBLIC_SCHEME... or PORT when SITES_DOMAIN is localhost. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  PUBLIC_PORT?: number;

  /**
   * HMAC key for the dashboard's access JWTs. Unset: generated once into
   * $DATA_DIR/jwt.secret and reused (set it when instances do not share DATA_DIR).
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'JWT_SECRET must be at least 32 characters' })
  JWT_SECRET?: string;

  /** Lifetime of an access JWT, in seconds. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86400)
  JWT_ACCESS_TTL_SECONDS = 900;

  /** Lifetime of a refresh token, in days; each refresh starts a new one. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(365)
  REFRESH_TOKEN_TTL_DAYS = 30;
}

export function validateEnv(raw: Record<string, unknown>): EnvironmentVariables {
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false, whitelist: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => {
      const value = (raw as Record<string, unknown>)[e.property];
      const why = Object.values(e.constraints ?? {}).join('; ');
      return `  ${e.property}=${JSON.stringify(value)}: ${why}`;
    });
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (env.STORAGE_DRIVER === 's3' && !env.S3_BUCKET) {
    throw new Error('Invalid configuration:\n  S3_BUCKET: required when STORAGE_DRIVER=s3');
  }
  return env;
}
