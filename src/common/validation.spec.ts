import { ValidationError } from 'class-validator';
import { describeValidationErrors } from './validation';

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
