/**
 * docs/api.md: the API reference to read in the repository, made from the same OpenAPI
 * document as the SDK's types (packages/sdk/generated/openapi.json), so it cannot drift from
 * what the service answers. One section per tag with every operation (access, parameters,
 * body, answers with their error codes), then every schema as a table of fields.
 * Plain markdown on purpose: GitHub and any editor render it; /docs is the interactive one.
 */

/** The parts of an OpenAPI 3.0 document this reads. */
interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  nullable?: boolean;
  description?: string;
  default?: unknown;
  example?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  pattern?: string;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Media {
  schema?: Schema;
}
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
}
export interface OpenApiDocument {
  info?: { title?: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components?: {
    schemas?: Record<string, Schema>;
    securitySchemes?: Record<string, { type: string; scheme?: string; description?: string }>;
  };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** A cell's text: one line, no table breaks. */
function cell(text: unknown): string {
  return String(text ?? '')
    .replace(/\r?\n+/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
/** GitHub's heading anchor of a schema name (`### DeploymentView` → `#deploymentview`). */
const schemaLink = (name: string) => `[${name}](#${name.toLowerCase()})`;

/** A schema's type in one short expression: `string`, `DeploymentView[]`, `"none" \| "password"`, `… \| null`. */
export function typeOf(schema: Schema | undefined): string {
  if (!schema) return '';
  let text: string;
  if (schema.$ref) text = schemaLink(refName(schema.$ref));
  else if (schema.oneOf || schema.anyOf) text = (schema.oneOf ?? schema.anyOf)!.map(typeOf).join(' or ');
  else if (schema.allOf) text = schema.allOf.map(typeOf).join(' and ');
  else if (schema.enum) {
    text = schema.enum
      .filter((v: unknown) => v !== null)
      .map((v: unknown) => `\`${JSON.stringify(v)}\``)
      .join(', ');
    if (schema.enum.length > 1) text = `one of ${text}`;
  } else if (schema.type === 'array') {
    const item = typeOf(schema.items);
    text = schema.items?.oneOf || schema.items?.anyOf || schema.items?.nullable ? `(${item})[]` : `${item}[]`;
  } else if (schema.type === 'object' && schema.properties) text = 'object';
  else text = schema.type ?? 'any';
  return schema.nullable ? `${text} or null` : text;
}

function constraints(schema: Schema): string {
  const parts: string[] = [];
  if (schema.default !== undefined) parts.push(`default \`${JSON.stringify(schema.default)}\``);
  if (schema.example !== undefined) parts.push(`e.g. \`${JSON.stringify(schema.example)}\``);
  if (schema.minLength !== undefined) parts.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) parts.push(`at most ${schema.maxLength} characters`);
  if (schema.minimum !== undefined) parts.push(`minimum ${schema.minimum}`);
  if (schema.pattern !== undefined) parts.push(`pattern \`${schema.pattern}\``);
  return parts.join(', ');
}

function meaning(schema: Schema): string {
  const limits = constraints(schema);
  return schema.description ? `${schema.description}${limits ? ` (${limits})` : ''}` : limits;
}

/** An error answer's codes (`allOf: [Error, {code: {enum}}]`), if it lists them. */
function errorCodes(schema: Schema | undefined): string[] {
  const codes = schema?.allOf?.find((s) => s.properties?.code)?.properties?.code.enum;
  return Array.isArray(codes) ? codes.map(String) : [];
}

function operationSection(method: string, path: string, op: Operation): string[] {
  const lines = [`### \`${method.toUpperCase()} ${path}\``, '', `${op.summary ?? ''}`.trim(), ''];
  if (op.description) lines.push(op.description.trim(), '');
  const params = op.parameters ?? [];
  if (params.length > 0) {
    lines.push('| parameter | in | type | required | meaning |', '|---|---|---|---|---|');
    for (const p of params)
      lines.push(
        `| \`${p.name}\` | ${p.in} | ${cell(typeOf(p.schema))} | ${p.required ? 'yes' : 'no'} | ${cell(meaning({ ...p.schema, description: p.description }))} |`,
      );
    lines.push('');
  }
  const body = op.requestBody?.content;
  if (body) {
    for (const [type, media] of Object.entries(body)) lines.push(`Body (\`${type}\`${op.requestBody!.required ? '' : ', optional'}): ${typeOf(media.schema)}`);
    lines.push('');
  }
  lines.push('| status | answer | body |', '|---|---|---|');
  for (const [status, res] of Object.entries(op.responses ?? {})) {
    const media = res.content ? Object.values(res.content)[0] : undefined;
    const codes = errorCodes(media?.schema);
    const what = codes.length > 0 ? `error: ${codes.map((c) => `\`${c}\``).join(', ')}` : typeOf(media?.schema);
    lines.push(`| ${status} | ${cell(res.description) || (status.startsWith('2') ? 'success' : '')} | ${cell(what)} |`);
  }
  lines.push('');
  return lines;
}

function schemaSection(name: string, schema: Schema): string[] {
  const lines = [`### ${name}`, ''];
  if (schema.description) lines.push(schema.description.trim(), '');
  if (schema.properties) {
    const required = new Set<string>(schema.required ?? []);
    lines.push('| field | type | required | meaning |', '|---|---|---|---|');
    for (const [field, prop] of Object.entries(schema.properties)) {
      lines.push(`| \`${field}\` | ${cell(typeOf(prop))} | ${required.has(field) ? 'yes' : 'no'} | ${cell(meaning(prop))} |`);
    }
  } else {
    lines.push(`${typeOf({ ...schema, description: undefined })}`);
  }
  lines.push('');
  return lines;
}

export function openApiToMarkdown(document: OpenApiDocument): string {
  const info = document.info ?? {};
  const lines: string[] = [
    `# ${info.title ?? 'API'} reference`,
    '',
    '<!-- Generated from packages/sdk/generated/openapi.json by `npm run sdk:generate`: do not edit by hand. -->',
    '',
    `${info.description ?? ''}`.trim(),
    '',
    'The running service serves the same document at `/docs/openapi.json` and an interactive page at `/docs`.',
    'The HTTP contract in words (headers, idempotency, how sites are served) is in the [README](../README.md).',
    '',
  ];
  const schemes = Object.entries(document.components?.securitySchemes ?? {});
  if (schemes.length > 0) {
    lines.push('## Authentication', '');
    for (const [name, s] of schemes) lines.push(`- \`${name}\`: ${s.type} ${s.scheme ?? ''}`.trimEnd() + (s.description ? `: ${s.description}` : ''));
    lines.push('', 'Each operation below says who may call it (**Access**).', '');
  }

  const tags = document.tags ?? [];
  const byTag = new Map<string, [string, string, Operation][]>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push([method, path, op]);
    }
  }
  const order = [...tags.map((t) => t.name).filter((t) => byTag.has(t)), ...[...byTag.keys()].filter((t) => !tags.some((d) => d.name === t))];

  lines.push('## Operations', '');
  for (const tag of order) {
    lines.push(
      `- **${tag}**: ${byTag
        .get(tag)!
        .map(([m, p]) => `\`${m.toUpperCase()} ${p}\``)
        .join(', ')}`,
    );
  }
  lines.push('');
  for (const tag of order) {
    const description = tags.find((t) => t.name === tag)?.description;
    lines.push(`## ${tag}`, '');
    if (description && description !== tag) lines.push(description, '');
    for (const [method, path, op] of byTag.get(tag)!) lines.push(...operationSection(method, path, op));
  }

  lines.push('## Schemas', '');
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) lines.push(...schemaSection(name, schema));
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
