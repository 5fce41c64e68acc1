import { ValidationError } from 'class-validator';

import { assertStorableText, describeValidationErrors, findLoneSurrogate, findNul, summarizeProblems } from './validation';

const error = (property: string, constraints?: Record<string, string>, children: ValidationError[] = []) =>
  Object.assign(new ValidationError(), { property, constraints, children });

describe('describeValidationErrors', () => {
  it('names the path of nested fields', () => {
    const lines = describeValidationErrors([
      error('name', { isString: 'name must be a string' }),
      error('files', undefined, [error('0', undefined, [error('path', { isString: 'path must be a string' })])]),
    ]);
    expect(lines).toEqual(['name: must be a string', 'files.0.path: must be a string']);
  });

  it('keeps messages that do not start with the property', () => {
    expect(describeValidationErrors([error('extra', { whitelistValidation: 'property extra should not exist' })])).toEqual([
      'extra: property extra should not exist',
    ]);
  });
});

describe('findNul', () => {
  it('names the first field holding a NUL character', () => {
    expect(findNul({ name: 'ok', tags: ['a', 'b\u0000'] })).toBe('tags[1]');
    expect(findNul({ files: [{ path: 'a\u0000', content: 'x' }] })).toBe('files[0].path');
    expect(findNul('a\u0000', 'projectId')).toBe('projectId');
  });
  it('lets deploy file contents (bytes) and clean values through', () => {
    expect(findNul({ files: [{ path: 'a.bin', content: 'x\u0000y' }] })).toBeUndefined();
    expect(findNul({ a: 1, b: null, c: [true, { d: 'text' }] })).toBeUndefined();
  });
  it('still checks a field called content outside a deploy file entry', () => {
    expect(findNul({ content: 'x\u0000' })).toBe('content');
  });
});

describe('summarizeProblems', () => {
  it('names every problem when there are at most 10', () => {
    expect(summarizeProblems(['a: x', 'b: y'])).toEqual({ message: 'a: x; b: y', shown: ['a: x', 'b: y'] });
  });

  it('names the first 10, then how many more', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `k${i}: property k${i} should not exist`);
    const { message, shown } = summarizeProblems(lines);
    expect(shown).toEqual(lines.slice(0, 10));
    expect(message).toBe(`${lines.slice(0, 10).join('; ')}; and 99990 more`);
  });
});

describe('findLoneSurrogate', () => {
  it('names a string holding half a surrogate pair', () => {
    expect(findLoneSurrogate({ email: '\ud800@x.io' })).toBe('email');
    expect(findLoneSurrogate({ a: ['ok', 'x\udc00'] })).toBe('a[1]');
  });
  it('lets whole pairs (astral characters) and deploy file contents through', () => {
    expect(findLoneSurrogate({ name: 'rocket \ud83d\ude80' })).toBeUndefined();
    expect(findLoneSurrogate({ files: [{ path: 'a', content: '\ud800' }] })).toBeUndefined();
  });
});

describe('assertStorableText', () => {
  it('throws a 400 naming the field', () => {
    expect(() => assertStorableText('a\u0000', 'workspaceId')).toThrow('workspaceId: must not contain a NUL character');
    expect(() => assertStorableText({ email: '\ud800' })).toThrow('email: must be valid Unicode text (it holds a lone surrogate)');
    expect(() => assertStorableText({ email: 'ann@x.io' })).not.toThrow();
  });
});
