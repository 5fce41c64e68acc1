import Bowser from 'bowser';

/**
 * A user agent reduced to its family (`Chrome`, `Firefox`, `curl`, `statichost-sdk`): enough
 * to tell a person's sessions and an audit entry's client apart, too little to tell people
 * apart. Browsers are recognised by bowser; any other client by its first product token.
 */
export function userAgentFamily(userAgent: string | undefined | null): string | null {
  if (!userAgent) return null;
  const browser = Bowser.getParser(userAgent).getBrowserName();
  if (browser) return browser;
  const product = /^([A-Za-z][A-Za-z0-9._-]{0,39})(?:\/|\s|$)/.exec(userAgent.trim());
  return product ? product[1] : null;
}
