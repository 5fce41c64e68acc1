import { OutgoingMessage, type ServerResponse, validateHeaderName, validateHeaderValue } from 'node:http';

/**
 * Node's own store of the headers given to setHeader (lowercased name → [name, value]).
 * `writeHead(status)` sends what that store holds without checking it again, where
 * `writeHead(status, list)` runs two regular expressions per header on every call (a few
 * per cent of a cached answer, which carries a dozen headers). No public API takes a
 * block checked once, so the store is found by its symbol's description; should a Node
 * version rename it, prepared heads carry no block and go out as lists, as before.
 */
const OUT_HEADERS = Object.getOwnPropertySymbols(new OutgoingMessage()).find((s) => s.description === 'kOutHeaders');

export type HeaderBlock = Readonly<Record<string, readonly [string, string]>>;

/** An answer's headers, kept for every request that gets the same answer. */
export interface PreparedHead {
  /** Flat name/value list, as writeHead takes it. */
  list: string[];
  /** The same headers, checked once, in Node's own store shape; undefined when `list` cannot be one. */
  block?: HeaderBlock;
}

export function prepareHead(list: string[]): PreparedHead {
  return { list, block: headerBlock(list) };
}

/**
 * `list` as Node's header store, each name and value checked as writeHead would check
 * them; undefined (send the list) when Node's store cannot be reached, when a name is
 * there twice (the store would send the second beside the first and change the order),
 * or when a header is invalid (writeHead then throws the error it always did).
 */
export function headerBlock(list: string[]): HeaderBlock | undefined {
  if (!OUT_HEADERS || list.length % 2 !== 0) return undefined;
  // An ordinary object, not Node's prototype-less one: V8 keeps it in fast mode, and Node's
  // for-in over it is then twice as fast (without that the block saves nothing). Nothing
  // on Object.prototype is enumerable; `__proto__` alone cannot be a key of it.
  const block: Record<string, readonly [string, string]> = {};
  for (let i = 0; i < list.length; i += 2) {
    const name = list[i];
    const value = list[i + 1];
    const key = name.toLowerCase();
    if (key === '__proto__' || Object.hasOwn(block, key)) return undefined;
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      return undefined;
    }
    block[key] = Object.freeze([name, value] as const);
  }
  // Shared by every response of the answer: frozen, so nothing can change it for the others.
  return Object.freeze(block);
}

/**
 * writeHead with a prepared head: the checked block when nothing was set on the response
 * before (a preview's X-Robots-Tag is, and then the list is merged in as always).
 */
export function writePreparedHead(res: ServerResponse, status: number, head: PreparedHead): void {
  const store = res as ServerResponse & Record<symbol, unknown>;
  if (head.block !== undefined && OUT_HEADERS !== undefined && !store[OUT_HEADERS]) {
    store[OUT_HEADERS] = head.block;
    res.writeHead(status);
  } else {
    res.writeHead(status, head.list);
  }
}
