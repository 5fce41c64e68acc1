// negotiator 1.x ships no types, and @types/negotiator describes 0.6 (without the
// `preferred` option this code relies on), so only what is used here is declared.
declare module 'negotiator' {
  class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    /** The encodings of `available` the client accepts, best first; ties go to `preferred` order. */
    encodings(available?: readonly string[], options?: { preferred?: readonly string[] }): string[];
    /** The media type of `available` the client prefers (the dashboard's HTML-or-JSON choice at `/`). */
    mediaType(available?: readonly string[]): string | undefined;
    /** Accept-Language's ranges, best first (q=0 left out; a missing header is ["*"]): `_redirects` Language= rules. */
    languages(): string[];
  }
  export = Negotiator;
}
