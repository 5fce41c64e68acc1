import fc from 'fast-check';

import { newId } from '../common/ids';
import { branchAlias, hashedPreviewAlias, pullRequestAlias, sanitiseBranch } from './preview-alias';
import { parsePreviewLabel, previewLabel } from './preview-label';
import { MAX_SLUG_LENGTH, newSlugProblem, SLUG_PATTERN, slugProblem } from './slug';

const HASHED = /^[a-z0-9-]+--[a-z0-9-]+--[a-z]{12}$/;

// Slugs a project may have: new ones, and older ones with "--" that slugProblem still takes.
const newSlugs = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/).filter((s) => newSlugProblem(s) === null);
const anySlugs = fc
  .oneof(newSlugs, fc.stringMatching(/^[a-z0-9]{1,30}--[a-z0-9]{1,30}$/), fc.stringMatching(/^[1-9][0-9]{0,9}$/), fc.stringMatching(/^[a-z0-9]{24}$/))
  .filter((s) => slugProblem(s) === null);
// Branch names as people write them: slashes, dots, capitals, Unicode, very long ones.
const branches = fc.oneof(
  fc.string({ minLength: 1, maxLength: 120 }),
  fc.stringMatching(/^[a-zA-Z0-9/._-]{1,120}$/),
  fc.constantFrom('main', 'feature/login', 'pr-12', 'PR/12', 'v2', 'xn--abc', 'dependabot/npm_and_yarn/vite-5.0.1', 'ünïcødé', '///'),
);
const pullRequests = fc.integer({ min: 1, max: 10_000_000 });

/** What a label may be on the sites domain: a DNS label that is not a reserved ("??--") one. */
function expectSafeLabel(label: string): void {
  expect(label.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
  expect(label).toMatch(SLUG_PATTERN);
  expect(label.slice(2, 4)).not.toBe('--');
}

describe('branchAlias / pullRequestAlias', () => {
  it('is <branch>--<slug> with the branch in [a-z0-9-], and pr-<n>--<slug>', () => {
    expect(branchAlias('main', 'shop')).toBe('main--shop');
    expect(branchAlias('feature/Login_Page', 'shop')).toBe('feature-login-page--shop');
    expect(branchAlias('--weird..name--', 'shop')).toBe('weird-name--shop');
    expect(branchAlias('x', 'shop')).toBe('x--shop');
    expect(pullRequestAlias(42, 'shop')).toBe('pr-42--shop');
  });

  it('cuts a long branch with a hash, keeping the label a DNS label', () => {
    const long = `feature/${'a'.repeat(80)}`;
    const label = branchAlias(long, 'shop');
    expect(label).toMatch(HASHED);
    expect(label.startsWith('feature-aaaa')).toBe(true);
    expect(label).toContain('--shop--');
    expectSafeLabel(label);
    // Two long branches sharing the head get different labels.
    expect(branchAlias(`${long}b`, 'shop')).not.toBe(label);
  });

  it('takes the hashed form where the short one would be unsafe or ambiguous', () => {
    // "v2--shop" is a reserved ("??--") label; "xn" would be punycode.
    expect(branchAlias('v2', 'shop')).toMatch(HASHED);
    expect(branchAlias('xn', 'shop')).toMatch(HASHED);
    expectSafeLabel(branchAlias('v2', 'shop'));
    // A branch named "pr-7" must not take pull request 7's address.
    expect(branchAlias('pr-7', 'shop')).not.toBe(pullRequestAlias(7, 'shop'));
    expect(branchAlias('pr-7', 'shop')).toMatch(HASHED);
    // Slug "2024": "main--2024" is project "main"'s preview of version 2024.
    expect(parsePreviewLabel('main--2024')).not.toBeNull();
    expect(branchAlias('main', '2024')).toMatch(HASHED);
    expect(pullRequestAlias(3, 'abcdefghijklmnopqrstuvwx')).toMatch(HASHED);
    // A slug taken before "--" was refused.
    expect(branchAlias('main', 'old--shop')).toMatch(HASHED);
    // Nothing left of the branch.
    expect(branchAlias('ünï', 'shop')).toBe('n--shop');
    expect(branchAlias('///', 'shop')).toMatch(/^b--shop--[a-z]{12}$/);
  });

  it('is the same label for the same input (the address follows the branch across builds)', () => {
    expect(branchAlias(`feature/${'x'.repeat(90)}`, 'shop')).toBe(branchAlias(`feature/${'x'.repeat(90)}`, 'shop'));
    expect(pullRequestAlias(9, 'a'.repeat(63))).toBe(pullRequestAlias(9, 'a'.repeat(63)));
  });

  it('refuses a pull request number that is not a positive integer', () => {
    expect(() => pullRequestAlias(0, 'shop')).toThrow(RangeError);
    expect(() => pullRequestAlias(1.5, 'shop')).toThrow(RangeError);
  });

  it('is always a safe DNS label that is neither a new slug nor a deployment preview label', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          branches.map((b) => ({ b })),
          pullRequests.map((n) => ({ n })),
        ),
        anySlugs,
        (source, slug) => {
          const label = 'b' in source ? branchAlias(source.b, slug) : pullRequestAlias(source.n, slug);
          expectSafeLabel(label);
          expect(newSlugProblem(label)).not.toBeNull();
          // The router reads preview labels first: an alias must never have their shape.
          expect(parsePreviewLabel(label)).toBeNull();
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never equals a deployment preview label of any project', () => {
    fc.assert(
      fc.property(branches, pullRequests, anySlugs, anySlugs, fc.integer({ min: 1, max: 0x7fffffff }), (branch, n, slug, other, version) => {
        const preview = previewLabel(other, version, newId('dep'));
        expect(branchAlias(branch, slug)).not.toBe(preview);
        expect(pullRequestAlias(n, slug)).not.toBe(preview);
      }),
      { numRuns: 800 },
    );
  });

  it('gives different projects different labels, and a branch never a pull request label', () => {
    fc.assert(
      fc.property(branches, branches, pullRequests, anySlugs, anySlugs, (b1, b2, n, s1, s2) => {
        fc.pre(s1 !== s2);
        expect(branchAlias(b1, s1)).not.toBe(branchAlias(b2, s2));
        expect(pullRequestAlias(n, s1)).not.toBe(pullRequestAlias(n, s2));
        expect(branchAlias(b1, s1)).not.toBe(pullRequestAlias(n, s2));
        expect(branchAlias(b1, s1)).not.toBe(pullRequestAlias(n, s1));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives two branches of a project the same label only when they sanitise alike', () => {
    fc.assert(
      fc.property(branches, branches, newSlugs, (b1, b2, slug) => {
        fc.pre(b1 !== b2 && sanitiseBranch(b1) !== sanitiseBranch(b2));
        expect(branchAlias(b1, slug)).not.toBe(branchAlias(b2, slug));
      }),
      { numRuns: 800 },
    );
  });
});

describe('hashedPreviewAlias', () => {
  it('is the hashed form even where the short form fits, and never the short form', () => {
    expect(hashedPreviewAlias({ kind: 'branch', branch: 'feature/x' }, 'shop')).toMatch(/^feature-x--shop--[a-z]{12}$/);
    expect(hashedPreviewAlias({ kind: 'pull_request', number: 7 }, 'shop')).toMatch(/^pr-7--shop--[a-z]{12}$/);
    // A hashed form the short one already is (too long a branch) stays the same address.
    const long = `feature/${'a'.repeat(80)}`;
    expect(hashedPreviewAlias({ kind: 'branch', branch: long }, 'shop')).toBe(branchAlias(long, 'shop'));
  });

  it('is a safe label that differs from every short form and has no preview label shape', () => {
    fc.assert(
      fc.property(branches, pullRequests, anySlugs, (branch, n, slug) => {
        for (const [source, short] of [
          [{ kind: 'branch', branch } as const, branchAlias(branch, slug)],
          [{ kind: 'pull_request', number: n } as const, pullRequestAlias(n, slug)],
        ] as const) {
          const hashed = hashedPreviewAlias(source, slug);
          expectSafeLabel(hashed);
          expect(hashed).toMatch(HASHED);
          expect(parsePreviewLabel(hashed)).toBeNull();
          if (!HASHED.test(short)) expect(hashed).not.toBe(short);
        }
      }),
    );
  });
});
