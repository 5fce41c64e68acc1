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

  /** Scheme, domain and port used to build public site URLs (never taken from a request). */
  @IsIn(['http', 'https'])
  PUBLIC_SCHEME: 'http' | 'https' = 'http';

  @Matches(/^[a-z0-9.-]+$/, { message: 'SITES_DOMAIN must be a lowercase host name' })
  SITES_DOMAIN = 'localhost';

  /** Port shown in public URLs; unset means the default port of PUBLIC_SCHEME... or PORT when SITES_DOMAIN is localhost. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  PUBLIC_PORT?: number;
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
