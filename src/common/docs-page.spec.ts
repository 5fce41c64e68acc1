import { createHash } from 'node:crypto';

import { docsPageCsp, docsPagePaths, scriptStyleElements } from './docs-page';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('docsPageCsp', () => {
  const html = `<html><head><style>
    body { margin:0 }
  </style></head><body><svg style="position:absolute;width:0;height:0"></svg>
<script src="./swagger-ui-bundle.js"> </script><style>
  .x { display: none }
</style></body></html>`;

  it("allows the page's <style> blocks, its style attributes (through 'unsafe-hashes') and the scripts' style elements by hash, and nothing inline besides", () => {
    const csp = docsPageCsp(html, ['.logo{fill:#fff}'], 'https://api.example.com');
    expect(csp).toBe(
      [
        "default-src 'none'",
        "script-src 'self'",
        `style-src 'self' ${hash('\n    body { margin:0 }\n  ')} ${hash('\n  .x { display: none }\n')} ${hash('.logo{fill:#fff}')} 'unsafe-hashes' ${hash('position:absolute;width:0;height:0')}`,
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self' https://api.example.com",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    );
    expect(csp).not.toContain('unsafe-inline');
  });

  it("has no 'unsafe-hashes' when the page has no style attribute", () => {
    expect(docsPageCsp('<style>a{}</style>', [])).toContain(`style-src 'self' ${hash('a{}')}; img-src`);
  });
});

describe('scriptStyleElements', () => {
  it('finds the text of the <style> elements a React bundle creates, unescaped', () => {
    const script = `x=n.createElement("path",{d:"M0"})),n.createElement("style",null,".a{fill:#fff}.b{content:\\"\\\\\\"\\"}"),o.createElement("style",{key:1},".c{}")`;
    expect(scriptStyleElements(script)).toEqual(['.a{fill:#fff}.b{content:"\\""}', '.c{}']);
  });
});

it('docsPagePaths are the three addresses of the page', () => {
  expect([...docsPagePaths('/docs')]).toEqual(['/docs', '/docs/', '/docs/index.html']);
});
