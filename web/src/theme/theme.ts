import { useSyncExternalStore } from 'react';

/** What the user chose in the theme switch; `system` follows prefers-color-scheme. */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'statichost.theme';
const listeners = new Set<() => void>();

function read(): ThemeChoice {
  try {
    const stored = localStorage.getItem(KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    // Storage refused (a privacy mode): the system's theme, every visit.
    return 'system';
  }
}

/** Sets data-theme on <html>, which tokens.css turns into a `color-scheme`; no attribute follows the system. */
export function applyTheme(choice: ThemeChoice = read()): void {
  if (choice === 'system') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.setAttribute('data-theme', choice);
}

export function setTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // Not remembered, but still applied for this visit.
  }
  current = choice;
  applyTheme(choice);
  listeners.forEach((l) => l());
}

let current: ThemeChoice = read();

export function useTheme(): ThemeChoice {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}
