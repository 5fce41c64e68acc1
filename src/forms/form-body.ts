import type { IncomingMessage } from 'node:http';

import busboy from 'busboy';

export interface FormBodyLimits {
  maxFields: number;
  maxFieldBytes: number;
  maxTotalBytes: number;
}

export type FormBody =
  | { ok: true; fields: [string, string][] }
  | { ok: false; status: 400 | 413 | 415; code: 'invalid_body' | 'too_large' | 'files_not_accepted' | 'unsupported_type'; message: string };

const TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/**
 * A form post's fields, as a browser sends them (urlencoded or multipart), read with busboy
 * within the limits: past them, a refusal that names the limit, never a partial submission.
 * A file part with a name or bytes is refused (files are not stored in this issue); the
 * empty part a browser sends for an untouched `<input type="file">` is ignored.
 */
export function readFormBody(req: IncomingMessage, limits: FormBodyLimits): Promise<FormBody> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!TYPES.includes(type)) {
    return settle(req, {
      ok: false,
      status: 415,
      code: 'unsupported_type',
      message: `A form is sent as application/x-www-form-urlencoded or multipart/form-data, not ${type || 'a body without Content-Type'}.`,
    });
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxTotalBytes)
    return settle(req, tooLarge(`The submission is larger than ${limits.maxTotalBytes} bytes.`));

  return new Promise<FormBody>((resolve) => {
    let done = false;
    const finish = (result: FormBody) => {
      if (done) return;
      done = true;
      req.unpipe();
      if (!result.ok) req.resume(); // drain what is left so the answer can be read
      resolve(result);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { fields: limits.maxFields, fieldSize: limits.maxFieldBytes, fieldNameSize: 256, files: limits.maxFields, parts: limits.maxFields * 2 },
      });
    } catch (err) {
      return finish({ ok: false, status: 400, code: 'invalid_body', message: `The form body could not be read: ${(err as Error).message}.` });
    }
    const fields: [string, string][] = [];
    let total = 0;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return finish(tooLarge(`The field "${name.slice(0, 64)}" is longer than ${limits.maxFieldBytes} bytes.`));
      if (info.nameTruncated) return finish({ ok: false, status: 400, code: 'invalid_body', message: 'A field name is longer than 256 bytes.' });
      // A part in a charset busboy cannot decode (utf-16be, say) arrives as no string at all.
      if (typeof value !== 'string') {
        return finish({
          ok: false,
          status: 400,
          code: 'invalid_body',
          message: `The field "${name.slice(0, 64)}" is in a character set that cannot be read; send it as UTF-8.`,
        });
      }
      fields.push([name, value]);
    });
    parser.on('file', (name, stream, info) => {
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
      stream.on('end', () => {
        if (info.filename || bytes > 0) {
          finish({
            ok: false,
            status: 415,
            code: 'files_not_accepted',
            message: `Files are not accepted by site forms (the field "${name.slice(0, 64)}" holds one).`,
          });
        }
      });
    });
    parser.on('fieldsLimit', () => finish(tooLarge(`The submission has more than ${limits.maxFields} fields.`)));
    parser.on('partsLimit', () => finish(tooLarge(`The submission has more than ${limits.maxFields} fields.`)));
    parser.on('filesLimit', () => finish({ ok: false, status: 415, code: 'files_not_accepted', message: 'Files are not accepted by site forms.' }));
    parser.on('error', (err: Error) => finish({ ok: false, status: 400, code: 'invalid_body', message: `The form body could not be read: ${err.message}.` }));
    parser.on('close', () => finish({ ok: true, fields }));
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limits.maxTotalBytes) finish(tooLarge(`The submission is larger than ${limits.maxTotalBytes} bytes.`));
    });
    req.on('error', () => finish({ ok: false, status: 400, code: 'invalid_body', message: 'The request body ended early.' }));
    req.pipe(parser);
  });
}

function tooLarge(message: string): FormBody {
  return { ok: false, status: 413, code: 'too_large', message };
}

/** A refusal decided before reading: the body is drained (not parsed) so the answer reaches the client. */
function settle(req: IncomingMessage, result: FormBody): Promise<FormBody> {
  req.resume();
  return Promise.resolve(result);
}
