import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CODES_NOT_PER_ROUTE, declaredCodes } from './error-codes';

type Json = Record<string, any>;

/**
 * The committed OpenAPI document (test/clients/sdk.e2e-spec.ts keeps it equal to what
 * the service serves, and the e2e global teardown checks every recorded answer against
 * it) against the declared codes: what the document promises is declared, and what is
 * declared is promised somewhere.
 */
const document: Json = JSON.parse(readFileSync(join(__dirname, '..', 'packages', 'sdk', 'generated', 'openapi.json'), 'utf8'));

/** Every (route, status, code) the document lists. */
function documented(): { route: string; status: number; code: string }[] {
  const found: { route: string; status: number; code: string }[] = [];
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      for (const [status, response] of Object.entries((op as Json).responses ?? {})) {
        const parts: Json[] = (response as Json).content?.['application/json']?.schema?.allOf ?? [];
        for (const code of parts.flatMap((p) => (p.properties?.code?.enum as string[] | undefined) ?? [])) {
          found.push({ route: `${method.toUpperCase()} ${path}`, status: Number(status), code });
        }
      }
    }
  }
  return found;
}

describe('declared error codes and the OpenAPI document', () => {
  const declared = declaredCodes();
  const byCode = new Map(declared.map((d) => [d.code, d]));

  it('declares each code once, in one module', () => {
    const twice = declared.filter((d, i) => declared.findIndex((e) => e.code === d.code) !== i).map((d) => d.code);
    expect(twice).toEqual([]);
  });

  it('documents only declared codes, each under a status it was declared with', () => {
    const list = documented();
    expect(list.length).toBeGreaterThan(100);
    const wrong = list.filter(({ code, status }) => !byCode.get(code)?.statuses.includes(status as never)).map((d) => `${d.route} ${d.status} ${d.code}`);
    expect(wrong).toEqual([]);
  });

  it('documents every declared code on at least one route, except those listed with a reason', () => {
    const onRoutes = new Set(documented().map((d) => d.code));
    const undocumented = declared.map((d) => d.code).filter((code) => !onRoutes.has(code) && !(code in CODES_NOT_PER_ROUTE));
    expect(undocumented).toEqual([]);
    // The exceptions stay exceptions: a code that is now on a route leaves the list.
    expect(Object.keys(CODES_NOT_PER_ROUTE).filter((code) => onRoutes.has(code) || !byCode.has(code))).toEqual([]);
  });

  it('publishes the declared codes as schemas for the SDK', () => {
    const schemas = document.components.schemas as Json;
    const all = (schemas.ErrorCode.anyOf as { $ref: string }[]).flatMap((part) => schemas[part.$ref.split('/').pop()!].enum as string[]);
    expect(all.sort()).toEqual(declared.map((d) => d.code).sort());
    expect(schemas.Error.properties.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    expect(schemas.BillingErrorCode.enum).toEqual(expect.arrayContaining(['quota_exceeded', 'payment_failed']));
  });
});
