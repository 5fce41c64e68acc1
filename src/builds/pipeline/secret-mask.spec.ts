import { LineMasker, maskSecrets, secretsOf } from './secret-mask';

describe('maskSecrets', () => {
  it('replaces every occurrence of every secret by ***', () => {
    expect(maskSecrets('token=s3cr3t-value and again s3cr3t-value', ['s3cr3t-value'])).toBe('token=*** and again ***');
    expect(maskSecrets('nothing here', ['s3cr3t-value'])).toBe('nothing here');
  });

  it('masks a secret that contains another one whole (longest first from secretsOf)', () => {
    const secrets = secretsOf(['abcd', 'abcdefgh']);
    expect(secrets).toEqual(['abcdefgh', 'abcd']);
    expect(maskSecrets('x abcdefgh y abcd', secrets)).toBe('x *** y ***');
  });
});

describe('secretsOf', () => {
  it('leaves out empty, missing and too short values, and masks a multi-line value line by line too', () => {
    expect(secretsOf([undefined, null, '', '1', 'dev', '-----BEGIN KEY-----\nQUJDREVGR0g=\n-----END KEY-----'])).toEqual([
      '-----BEGIN KEY-----\nQUJDREVGR0g=\n-----END KEY-----',
      '-----BEGIN KEY-----',
      '-----END KEY-----',
      'QUJDREVGR0g=',
    ]);
  });
});

describe('LineMasker', () => {
  const collect = (secrets: string[], maxLine?: number) => {
    const lines: string[] = [];
    const masker = new LineMasker(secretsOf(secrets), (l) => lines.push(l), maxLine);
    return { masker, lines };
  };

  it('masks a secret split across two chunks (it waits for the end of the line)', () => {
    const { masker, lines } = collect(['hunter2-password']);
    masker.write('the password is hunter2-');
    expect(lines).toEqual([]);
    masker.write('password, ok\nnext ');
    expect(lines).toEqual(['the password is ***, ok']);
    masker.write('line hunter2-pass');
    masker.write('word');
    masker.flush();
    expect(lines).toEqual(['the password is ***, ok', 'next line ***']);
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  it('splits on \\n and drops a \\r before it; flush with nothing pending emits nothing', () => {
    const { masker, lines } = collect([]);
    masker.write('a\r\nb\n\nc');
    masker.flush();
    masker.flush();
    expect(lines).toEqual(['a', 'b', '', 'c']);
  });

  it('passes an endless line on in bounded pieces', () => {
    const { masker, lines } = collect([], 10);
    masker.write('x'.repeat(25));
    expect(lines).toEqual(['x'.repeat(10), 'x'.repeat(10)]);
    masker.flush();
    expect(lines[2]).toBe('x'.repeat(5));
  });
});
