import { applyHeaderChanges, NO_HEADER_CHANGES } from '../shared/site-rules/headers';
import { ConditionalAnswers, conditionalHeaderChanges, conditionalKey, MAX_CONDITIONAL_ANSWERS } from './conditional-answers';

const entry = (answer: string) => ({ kind: 'conditional' as const, answer, language: false, country: false });

describe('ConditionalAnswers', () => {
  it('remembers which paths are conditional and their answers by key', () => {
    const memo = new ConditionalAnswers<string>();
    expect(memo.isConditional('fr')).toBe(false);
    memo.set('fr', conditionalKey('/fr', undefined, 'fr', undefined), entry('french'));
    expect(memo.isConditional('fr')).toBe(true);
    expect(memo.get(conditionalKey('/fr', undefined, 'fr', undefined))?.answer).toBe('french');
    expect(memo.get(conditionalKey('/fr', undefined, 'en', undefined))).toBeUndefined();
  });

  it('starts over past MAX_CONDITIONAL_ANSWERS instead of growing', () => {
    const memo = new ConditionalAnswers<string>();
    for (let i = 0; i < MAX_CONDITIONAL_ANSWERS; i++) memo.set('p', conditionalKey('/p', undefined, `l${i}`, undefined), entry(`a${i}`));
    expect(memo.get(conditionalKey('/p', undefined, 'l0', undefined))).toBeDefined();
    memo.set('q', 'new', entry('b'));
    expect(memo.get(conditionalKey('/p', undefined, 'l0', undefined))).toBeUndefined();
    expect(memo.isConditional('p')).toBe(false);
    expect(memo.get('new')?.answer).toBe('b');
  });
});

describe('conditionalKey', () => {
  it('tells apart every value a rule may read, and nothing it does not', () => {
    const keys = [
      conditionalKey('/a?x=1', undefined, undefined, undefined),
      conditionalKey('/a?x=2', undefined, undefined, undefined),
      conditionalKey('/a?x=1', 'a.example', undefined, undefined),
      conditionalKey('/a?x=1', undefined, 'fr', undefined),
      conditionalKey('/a?x=1', undefined, undefined, 'FR'),
      conditionalKey('/a?x=1', undefined, undefined, null),
    ];
    expect(new Set(keys.slice(0, 5)).size).toBe(5);
    // An unknown country and a site whose rules read none share an entry: neither can match a Country= rule.
    expect(keys[5]).toBe(keys[0]);
  });
});

describe('conditionalHeaderChanges', () => {
  const base = ['Cache-Control', 'public, max-age=0, must-revalidate', 'Vary', 'Accept-Encoding'];

  it('leaves an answer that read neither language nor country as it is', () => {
    expect(conditionalHeaderChanges(NO_HEADER_CHANGES, false, false)).toBe(NO_HEADER_CHANGES);
  });

  it('adds Vary: Accept-Language, merged with the server’s and the site’s Vary', () => {
    const changes = conditionalHeaderChanges({ set: [['Vary', 'Origin']], remove: [] }, true, false);
    expect(applyHeaderChanges(base, changes)).toEqual([
      'Cache-Control',
      'public, max-age=0, must-revalidate',
      'Vary',
      'Accept-Encoding, Origin, Accept-Language',
    ]);
  });

  it('drops every _headers rule about caching from a country answer, so no shared cache keeps it', () => {
    const site = {
      set: [
        ['Cache-Control', 'public, max-age=3600'],
        ['CDN-Cache-Control', 'max-age=86400'],
        ['X-Frame-Options', 'DENY'],
      ] as const,
      remove: ['expires', 'x-powered-by'],
    };
    const changes = conditionalHeaderChanges(site, false, true);
    expect(changes).toEqual({ set: [['X-Frame-Options', 'DENY']], remove: ['x-powered-by'] });
    expect(applyHeaderChanges(['Cache-Control', 'private, max-age=0, must-revalidate'], changes)).toEqual([
      'Cache-Control',
      'private, max-age=0, must-revalidate',
      'X-Frame-Options',
      'DENY',
    ]);
  });
});
