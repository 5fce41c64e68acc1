import { extractForms, mergeForms, SCAN_LIMITS } from './extract';

describe('extractForms', () => {
  it('finds a data-statichost-form with its named fields in order, without form-name and the honeypot', () => {
    const html = `<!doctype html><body>
      <form data-statichost-form="contact" data-statichost-honeypot="company" action="/thanks/" method="post">
        <input type="hidden" name="form-name" value="contact">
        <p hidden><input name="company"></p>
        <input name="name"><input type="email" name="email">
        <select name="topic"><option>a</option></select>
        <textarea name="message"></textarea>
        <input name="email"><input type="text"><button type="button" name="preview">x</button>
        <button name="send">Send</button>
      </form></body>`;
    expect(extractForms(html)).toEqual([
      { name: 'contact', fields: ['name', 'email', 'topic', 'message', 'send'], honeypot: 'company', action: '/thanks/', files: false },
    ]);
  });

  it("reads Netlify's markers (netlify, data-netlify=true) and netlify-honeypot", () => {
    const html = `<form name="newsletter" netlify netlify-honeypot="bot-field"><input name="bot-field"><input name="email"></form>
      <FORM NAME="signup" DATA-NETLIFY="true"><input name="who"></FORM>
      <form name="plain"><input name="q"></form>
      <form data-netlify="false" name="off"><input name="q"></form>`;
    expect(extractForms(html)).toEqual([
      { name: 'newsletter', fields: ['email'], honeypot: 'bot-field', action: null, files: false },
      { name: 'signup', fields: ['who'], honeypot: null, action: null, files: false },
    ]);
  });

  it('keeps an action only when it is a path on the site', () => {
    const actions = ['https://evil.example/x', '//evil.example/x', 'thanks.html', '/\\evil', '/ok.html?x=1', 'javascript:alert(1)'];
    const html = actions.map((a, i) => `<form data-statichost-form="f${i}" action="${a}"></form>`).join('');
    expect(extractForms(html).map((f) => f.action)).toEqual([null, null, null, null, '/ok.html', null]);
  });

  it('notes file inputs, ignores nested forms and closes an unclosed form at the end', () => {
    const html = `<form data-statichost-form="upload"><input type="file" name="cv"><form data-statichost-form="inner"><input name="x"></form><input name="y">`;
    expect(extractForms(html)).toEqual([{ name: 'upload', fields: ['cv', 'x', 'y'], honeypot: null, action: null, files: true }]);
  });

  it('never throws on junk and bounds forms and fields', () => {
    expect(extractForms('<form data-statichost-form="a"<<<>>><input name=</form')).toBeInstanceOf(Array);
    const many = Array.from({ length: SCAN_LIMITS.maxFormsPerDeployment + 5 }, (_, i) => `<form data-statichost-form="f${i}"></form>`).join('');
    expect(extractForms(many)).toHaveLength(SCAN_LIMITS.maxFormsPerDeployment);
    const fields = Array.from({ length: SCAN_LIMITS.maxFieldsPerForm + 5 }, (_, i) => `<input name="x${i}">`).join('');
    expect(extractForms(`<form data-statichost-form="big">${fields}</form>`)[0].fields).toHaveLength(SCAN_LIMITS.maxFieldsPerForm);
  });
});

describe('extractForms and NUL', () => {
  it('reads a NUL in a name as U+FFFD, as a browser does (the database refuses NUL)', () => {
    expect(extractForms('<form data-statichost-form="a\u0000b"><input name="c\u0000d"></form>')).toEqual([
      { name: 'a\ufffdb', fields: ['c\ufffdd'], honeypot: null, action: null, files: false },
    ]);
  });
});

describe('mergeForms', () => {
  it('merges one name declared on several pages: fields united, the first page (by path) kept', () => {
    const form = (fields: string[], action: string | null) => ({ name: 'contact', fields, honeypot: null, action, files: false });
    expect(
      mergeForms([
        { path: 'b.html', forms: [form(['email', 'phone'], '/b')] },
        { path: 'a.html', forms: [form(['name', 'email'], '/a')] },
      ]),
    ).toEqual([{ name: 'contact', fields: ['name', 'email', 'phone'], honeypot: null, action: '/a', page: 'a.html', files: false }]);
  });
});
