/** The OpenAPI document as committed beside the types (two-space indent, trailing newline). */
export function documentText(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
