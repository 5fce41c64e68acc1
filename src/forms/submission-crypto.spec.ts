import { randomBytes } from 'node:crypto';

import { WorkspaceIndex } from '../leads/lead-crypto';
import { fieldTokens, openFields, sealFields, searchText, submissionAad } from './submission-crypto';

const key = randomBytes(32);
const fields = { name: 'Ann Example', message: 'Hello there' };

describe('submission crypto', () => {
  it('opens what it sealed, in the order sent, and only at its own row', () => {
    const sealed = sealFields(key, fields, submissionAad('frm_a', 'fsub_1'));
    expect(sealed.ciphertext.includes(Buffer.from('Ann'))).toBe(false);
    expect(Object.entries(openFields(key, sealed, submissionAad('frm_a', 'fsub_1'))!)).toEqual(Object.entries(fields));
    expect(openFields(key, sealed, submissionAad('frm_a', 'fsub_2'))).toBeNull();
    expect(openFields(randomBytes(32), sealed, submissionAad('frm_a', 'fsub_1'))).toBeNull();
  });

  it('indexes every value, so the tokens of a search within any value are a subset', () => {
    const index = new WorkspaceIndex('k1', randomBytes(32), 'ws_1');
    const tokens = new Set(fieldTokens(index, fields));
    for (const search of ['ann ex', 'hello', 'there']) expect(index.tokens(searchText(search)).every((t) => tokens.has(t))).toBe(true);
    expect(index.tokens(searchText('zebra')).every((t) => tokens.has(t))).toBe(false);
  });
});
