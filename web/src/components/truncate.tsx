import { Focusable, Tooltip, TooltipTrigger } from 'react-aria-components';

import { CopyButton } from './ui';

/**
 * An address or id on one line: cut with an ellipsis where the column ends (never broken
 * mid-word, so a 375 px table keeps its rows one line high), the whole value in a tooltip
 * on hover and on keyboard focus, and a copy button, since a cut value cannot be selected.
 * With `href` the value is a link (a site's address) and the scheme is left off the text.
 */
export function Truncate({ value, href, label = 'value' }: { value: string; href?: string; label?: string }) {
  const shown = href ? value.replace(/^https?:\/\//, '') : value;
  return (
    <span className="truncate">
      <TooltipTrigger delay={400} closeDelay={200}>
        <Focusable>
          {href ? (
            <a className="truncate-text mono" href={href} target="_blank" rel="noreferrer">
              {shown}
            </a>
          ) : (
            // A focusable stand-in for the value, so keyboard users reach its tooltip; "img"
            // is the one non-widget role a tooltip may describe, and its name is the whole value.
            <span className="truncate-text mono" tabIndex={0} role="img" aria-label={`${label}: ${value}`}>
              {shown}
            </span>
          )}
        </Focusable>
        <Tooltip className="truncate-tooltip mono" offset={6}>
          {value}
        </Tooltip>
      </TooltipTrigger>
      {/* "Copy" on screen, to leave the row its room; the button's name carries the whole value. */}
      <CopyButton text={value} label="Copy" />
    </span>
  );
}
