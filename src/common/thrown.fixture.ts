/** Test fixture: the error `fn` throws, failing the test unless it throws, and throws a `type`. */
export function thrownBy<E extends Error>(type: abstract new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(type);
    return e as E;
  }
  throw new Error(`expected a ${type.name}`);
}
