/**
 * Bounds on the shape of a parsed JSON body. JSON.parse itself is cheap and
 * iterative; what comes after is not: class-transformer's plainToInstance dedupes
 * an object's keys with indexOf (quadratic: 100,000 keys took ~7.5 s of blocked
 * event loop), validation makes one error per unknown key, and recursive walkers
 * overflow the stack on deep nesting. Bodies outside these bounds are refused
 * before any of that runs.
 */
export interface JsonShapeLimits {
  /** Nesting of objects and arrays; the top-level value is depth 1. */
  maxDepth: number;
  /** Keys of any one object (no request DTO has more than a handful). */
  maxKeysPerObject: number;
  /** Values in the whole body: object members plus array elements. */
  maxValues: number;
}

/** A deploy's file entry is one array element with at most four members. */
export function jsonShapeLimits(maxFilesPerDeployment: number): JsonShapeLimits {
  return { maxDepth: 32, maxKeysPerObject: 100, maxValues: maxFilesPerDeployment * 5 + 1000 };
}

function pathOf(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (parent ? `${parent}.${key}` : key) : `${parent}[${JSON.stringify(key.slice(0, 40))}]`;
}

/**
 * What makes `value` exceed `limits` (e.g. `body.files[3]: 150 keys; at most 100`),
 * or undefined when it fits. Iterative, and it stops at the first problem, so it
 * costs at most one pass over what the body parser already built.
 */
export function checkJsonShape(value: unknown, limits: JsonShapeLimits): string | undefined {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 1, path: 'body' }];
  let values = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.value === null || typeof node.value !== 'object') continue;
    if (node.depth > limits.maxDepth) return `${node.path}: the body is nested more than ${limits.maxDepth} levels deep`;
    if (Array.isArray(node.value)) {
      values += node.value.length;
      if (values > limits.maxValues) return `the body has more than ${limits.maxValues} values (object members and array elements)`;
      for (let i = node.value.length - 1; i >= 0; i--) {
        const child: unknown = node.value[i];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: node.depth + 1, path: pathOf(node.path, i) });
      }
      continue;
    }
    const keys = Object.keys(node.value);
    if (keys.length > limits.maxKeysPerObject) return `${node.path}: an object with ${keys.length} keys; at most ${limits.maxKeysPerObject} are allowed`;
    values += keys.length;
    if (values > limits.maxValues) return `the body has more than ${limits.maxValues} values (object members and array elements)`;
    for (let i = keys.length - 1; i >= 0; i--) {
      const child: unknown = (node.value as Record<string, unknown>)[keys[i]];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: node.depth + 1, path: pathOf(node.path, keys[i]) });
    }
  }
  return undefined;
}
