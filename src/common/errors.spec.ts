import { ApiError, badRequest, type DeclaredCode, declareErrors, forbidden } from './errors';

const sample = declareErrors('sample', { thing_taken: 409, thing_invalid: 400, thing_missing: [402, 409] });

describe('declared error codes', () => {
  it('answer with the status their module declared', () => {
    expect(sample('thing_taken', 'taken', { id: 'x' }).body()).toEqual({ statusCode: 409, error: 'Conflict', message: 'taken', code: 'thing_taken', id: 'x' });
    expect(sample('thing_invalid', 'bad').getStatus()).toBe(400);
    expect(sample.at(409, 'thing_missing', 'gone').body()).toMatchObject({ statusCode: 409, code: 'thing_missing' });
    expect(badRequest('x: bad').body()).toMatchObject({ statusCode: 400, code: 'validation_failed' });
    expect(forbidden('no').code).toBe('forbidden');
  });

  it('refuse undeclared codes at compile time (each @ts-expect-error fails the typecheck if the types stop catching it)', () => {
    const attempts = [
      // @ts-expect-error a code the module did not declare
      () => sample('thing_tkaen', 'typo'),
      // @ts-expect-error a code declared with several statuses needs one named
      () => sample('thing_missing', 'which status?'),
      // @ts-expect-error a status the code was not declared with
      () => sample.at(400, 'thing_missing', 'wrong status'),
      // @ts-expect-error a free-string code on a common helper
      () => badRequest('x', 'thing_invalid'),
      // @ts-expect-error an ApiError made by hand with a free string
      () => new ApiError(400, 'free_string', 'x'),
    ];
    expect(attempts).toHaveLength(5);
    const declared: DeclaredCode = sample('thing_taken', 'x').code as DeclaredCode;
    expect(declared).toBe('thing_taken');
  });
});
