/**
 * Test fixture for the tables of "this input gives that output" cases: one test per
 * `[input, expected]` row, titled by `title` as `it.each` titles them, each expecting
 * `fn(input)` to be `expected`.
 */
export function itMapsEach<I, O>(title: string, fn: (input: I) => O, cases: readonly (readonly [I, O])[]): void {
  it.each(cases)(title, (input, expected) => {
    expect(fn(input)).toBe(expected);
  });
}
