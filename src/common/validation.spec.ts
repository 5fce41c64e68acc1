import { Transform } from 'class-transformer';
import { IsOptional, IsString, ValidationError } from 'class-validator';

import { WorkspaceLeadsQueryDto } from '../leads/dto/leads-query.dto';
import { PageQueryDto } from './pagination';
import {
  assertStorableText,
  createValidationPipe,
  describeValidationErrors,
  findLoneSurrogate,
  findNul,
  MemoValidationPipe,
  summarizeProblems,
} from './validation';

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

describe('MemoValidationPipe (query DTOs)', () => {
  class Nested {
    @IsString()
    tag: string;
  }
  class WithObject extends PageQueryDto {
    @IsOptional()
    @Transform(({ value }: { value: string }) => Object.assign(new Nested(), { tag: value }))
    nested?: Nested;
  }
  const asQuery = (metatype: new () => object) => ({ type: 'query' as const, metatype, data: undefined });
  const query = (fields: Record<string, string>) => Object.assign(Object.create(null) as object, fields);
  let pipe: MemoValidationPipe;
  beforeEach(() => {
    pipe = createValidationPipe() as MemoValidationPipe;
  });

  it('gives every request its own DTO of the class, equal to what validation gives', async () => {
    const first = (await pipe.transform(query({ page: '2' }), asQuery(PageQueryDto))) as PageQueryDto;
    const second = (await pipe.transform(query({ page: '2' }), asQuery(PageQueryDto))) as PageQueryDto;
    expect(second).toBeInstanceOf(PageQueryDto);
    expect(second).not.toBe(first);
    expect({ ...second }).toEqual({ page: 2, limit: 20 });
    expect(second.offset).toBe(20);
    first.page = 9;
    expect(((await pipe.transform(query({ page: '2' }), asQuery(PageQueryDto))) as PageQueryDto).page).toBe(2);
  });

  it('validates a query it has not seen, and refuses an invalid one every time', async () => {
    await pipe.transform(query({ page: '2' }), asQuery(PageQueryDto));
    expect(((await pipe.transform(query({ page: '3' }), asQuery(PageQueryDto))) as PageQueryDto).page).toBe(3);
    for (let i = 0; i < 2; i++) {
      await expect(pipe.transform(query({ page: '0' }), asQuery(PageQueryDto))).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(pipe.transform(query({ extra: '1' }), asQuery(PageQueryDto))).rejects.toMatchObject({ code: 'validation_failed' });
    }
  });

  it('keeps one DTO class’s answers apart from another’s', async () => {
    await pipe.transform(query({}), asQuery(PageQueryDto));
    const leads = await pipe.transform(query({}), asQuery(WorkspaceLeadsQueryDto));
    expect(leads).toBeInstanceOf(WorkspaceLeadsQueryDto);
    expect((leads as WorkspaceLeadsQueryDto).limit).toBe(25);
  });

  it('does not keep a DTO holding an object, so no two requests share it', async () => {
    const first = (await pipe.transform(query({ nested: 'a' }), asQuery(WithObject))) as WithObject;
    const second = (await pipe.transform(query({ nested: 'a' }), asQuery(WithObject))) as WithObject;
    expect(second.nested).toEqual(first.nested);
    expect(second.nested).not.toBe(first.nested);
  });
});
