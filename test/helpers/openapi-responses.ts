import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

import type { RecordedResponse } from './response-recorder';

type Json = Record<string, unknown>;

/**
 * A schema of the document made ready for Ajv: object schemas get
 * `additionalProperties: false` unless they say otherwise (the error schema allows
 * details), so a field the API answers but the document does not name is a mismatch
 * too and a renamed field cannot slip by. The parts of an `allOf` stay open (each is
 * checked alone, so a closed part would refuse the other parts' fields). A
 * `nullable` without `type` (OpenAPI allows it, Ajv does not) becomes an anyOf with null, as
 * does a nullable `$ref` (`type: object, nullable, allOf: [$ref]`, what @nestjs/swagger writes
 * for a nullable nested view): Ajv would let null past the `type` but not past the $ref.
 */
function prepare(node: unknown, close = true): unknown {
  if (Array.isArray(node)) return node.map((n) => prepare(n, close));
  if (typeof node !== 'object' || node === null) return node;
  let out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, prepare(s)]));
    else if (k === 'allOf') out[k] = (v as unknown[]).map((part) => prepare(part, false));
    else if (k === '$ref' && typeof v === 'string') out[k] = v.replace(/^#\/components\//, `${DOCUMENT_ID}#/components/`);
    else out[k] = prepare(v);
  }
  if (close && out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  if (out.nullable === true && (out.type === undefined || Array.isArray(out.allOf))) {
    const { nullable: _, ...rest } = out;
    out = { anyOf: [rest, { type: 'null' }] };
  }
  return out;
}

const DOCUMENT_ID = 'openapi.json';

/** Checks recorded answers against an OpenAPI 3.0 document; returns one line per mismatch. */
export class ResponseValidator {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly document: Json;

  constructor(document: object) {
    this.document = document as Json;
    // `nullable` is understood by Ajv itself; OpenAPI's `example` is only an annotation.
    this.ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(this.ajv);
    // The components as one schema resource that every $ref points into.
    const schemas = ((this.document.components as Json | undefined)?.schemas ?? {}) as Json;
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: prepare(schemas) } });
  }

  /** `null` when the answer matches, else what is wrong. */
  check(r: Pick<RecordedResponse, 'method' | 'route' | 'status' | 'body'>): string | null {
    const template = r.route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const paths = this.document.paths as Record<string, Record<string, Json>>;
    const op = paths[template]?.[r.method];
    if (!op) return `${r.method.toUpperCase()} ${template} is not in the document`;
    const responses = op.responses as Record<string, Json>;
    const response = responses[String(r.status)] ?? responses.default;
    if (!response) return `${r.method.toUpperCase()} ${template} → ${r.status}: status not documented (documented: ${Object.keys(responses).join(', ')})`;
    const schema = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema;
    if (!schema) return `${r.method.toUpperCase()} ${template} → ${r.status}: answered JSON but the document gives no schema`;
    const key = `${r.method} ${template} ${r.status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(prepare(schema) as object);
      this.compiled.set(key, validate);
    }
    if (validate(r.body)) return null;
    const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    return `${r.method.toUpperCase()} ${template} → ${r.status}: ${errors.join('; ')} in ${JSON.stringify(r.body).slice(0, 300)}`;
  }
}

/** Every record in `dir` checked against `document`: distinct mismatches, each with the test files that met it. */
export function validateRecordedResponses(dir: string, document: object): { checked: number; failures: string[] } {
  const validator = new ResponseValidator(document);
  const failures = new Map<string, Set<string>>();
  let checked = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    for (const record of JSON.parse(readFileSync(join(dir, file), 'utf8')) as RecordedResponse[]) {
      checked++;
      const problem = validator.check(record);
      if (problem) failures.set(problem, (failures.get(problem) ?? new Set()).add(record.test));
    }
  }
  return { checked, failures: [...failures].map(([problem, tests]) => `${problem} (${[...tests].join(', ')})`) };
}
