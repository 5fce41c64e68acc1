import type { IncomingMessage } from 'node:http';

import { EMPTY_CONTEXT, NO_NEEDS } from '../shared/site-rules/request-context';
import { acceptedLanguages, MAX_LANGUAGES, requestContext } from './request-context';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const ALL = { host: true, language: true, country: true };

describe('acceptedLanguages', () => {
  it('orders by q-value, keeps the header order on ties, drops q=0, lowercases', () => {
    expect(acceptedLanguages('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual(['fr-ch', 'fr', 'en', 'de']);
    expect(acceptedLanguages('de;q=0.5, EN-us;q=0.9, it;q=0')).toEqual(['en-us', 'de']);
    expect(acceptedLanguages('nl;q=0.5, pt-BR;q=0.5')).toEqual(['nl', 'pt-br']);
  });

  it('is empty without a header or with nothing usable in it ("*" names no language)', () => {
    expect(acceptedLanguages(undefined)).toEqual([]);
    expect(acceptedLanguages('')).toEqual([]);
    expect(acceptedLanguages('*')).toEqual([]);
    expect(acceptedLanguages(';;;, "x", en;q=abc, é')).toEqual([]);
  });

  it('reads en_US as en-us, lists each language once, and stops at MAX_LANGUAGES', () => {
    expect(acceptedLanguages('en_US, en-us;q=0.9, EN')).toEqual(['en-us', 'en']);
    const many = Array.from({ length: 50 }, (_, i) => `x${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`).join(',');
    expect(acceptedLanguages(many)).toHaveLength(MAX_LANGUAGES);
  });
});

describe('requestContext', () => {
  it('reads nothing for rules without conditions (the same frozen empty context)', () => {
    const country = jest.fn(() => 'FR');
    expect(requestContext(request({ host: 'A.example', 'accept-language': 'fr' }), NO_NEEDS, country)).toBe(EMPTY_CONTEXT);
    expect(country).not.toHaveBeenCalled();
  });

  it('fills only what the rules need: host lowercased without port, languages, country', () => {
    const req = request({ host: 'Old.Example.COM:8443', 'accept-language': 'fr;q=0.5, en' });
    expect(requestContext(req, ALL, () => 'FR')).toEqual({ host: 'old.example.com', languages: ['en', 'fr'], country: 'FR' });
    const country = jest.fn(() => 'FR');
    expect(requestContext(req, { host: false, language: true, country: false }, country)).toEqual({ host: '', languages: ['en', 'fr'], country: null });
    expect(country).not.toHaveBeenCalled();
    expect(requestContext(request({ host: 'www.example.org.' }), { host: true, language: false, country: false }, country).host).toBe('www.example.org');
  });

  it('gives an empty host for a malformed Host and null for an unknown country', () => {
    expect(requestContext(request({ host: 'bad host' }), ALL, () => null)).toEqual({ host: '', languages: [], country: null });
  });
});
