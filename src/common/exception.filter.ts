import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Logger } from 'pino';

import { toErrorBody } from './error-body';
import { closeAfterAnswer } from './lingering-close';

/** The one place where errors become HTTP answers. */
@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    sendError(this.logger, exception, req, res);
  }
}

export function sendError(logger: Logger, exception: unknown, req: Request, res: Response): void {
  // The answer has already gone (e.g. a 408 for a stalled body) and the client with it:
  // the reset the handler then meets is the consequence, not a bug.
  if (res.writableEnded && (exception as NodeJS.ErrnoException | null)?.code === 'ECONNRESET') return;
  const { body, internal, headers: own } = toErrorBody(exception);
  const requestId = String((req as { id?: unknown }).id ?? '');
  if (internal) {
    body.requestId = requestId;
    body.message = `Internal server error (request id ${requestId})`;
    // The path only: query strings can carry search terms (leads) or signed values.
    logger.error({ err: exception, reqId: requestId, method: req.method, url: req.originalUrl.split('?')[0] }, 'unhandled error');
  } else if (body.code === 'database_unavailable') {
    logger.warn({ reqId: requestId, method: req.method, url: req.originalUrl.split('?')[0], err: (exception as Error).message }, 'database unavailable');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // A refused body is not read on: the connection closes after the answer instead of
  // draining whatever the client still sends (a declared 5 GB would hold it for hours),
  // with a lingering close so the client still gets the answer.
  if (!req.complete) closeAfterAnswer(req, res);
  const headers = own ?? (exception as { headers?: Record<string, string> } | null)?.headers;
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(body.statusCode).json(body);
}
