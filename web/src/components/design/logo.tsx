/**
 * The statichost mark: a page (the site) lifted onto a layer (the host), drawn in the
 * accent colour. The favicon (web/src/favicon.svg) is the same drawing.
 */
export function LogoMark({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false" className="logo-mark">
      <rect width="32" height="32" rx="8" fill="#1d4ed8" />
      <path d="M7 20.5 16 25l9-4.5" fill="none" stroke="#93b4ff" strokeWidth="2.2" strokeLinecap="round" strokeLinejoin="round" />
      <path d="M16 7 7 11.5 16 16l9-4.5z" fill="#fff" />
      <path d="M7 16 16 20.5 25 16" fill="none" stroke="#fff" strokeWidth="2.2" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/** The mark and the name, as the sidebar and the sign-in pages show them. */
export function Logo() {
  return (
    <span className="logo">
      <LogoMark />
      <span className="logo-name">statichost</span>
    </span>
  );
}
