import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';

import { formatNumber } from '../locale';
import { Field, SelectField, useDebounced } from './ui';

/**
 * Lists that scale (issue 33): every list that can grow (projects, deployments, leads,
 * members, tokens) keeps its query in the address (`?q=&page=` and the list's own filters),
 * so reload, back and a shared link show the same list, and pages through 25 rows at a time.
 */
export const LIST_PAGE = 25;

export interface ListParams {
  page: number;
  /** The search text as typed into the address (untrimmed; '' when none). */
  q: string;
  /** The search the API is asked for: trimmed, at most `maxSearch` characters, undefined when empty. */
  search: string | undefined;
  /** A parameter's value when it is one of `allowed`, else undefined: a value the API would refuse reads as absent. */
  pick: <T extends string>(key: string, allowed: readonly T[]) => T | undefined;
  /** Sets (or, with '', drops) parameters; any change but the page's starts again at page 1. `push` adds a history entry (paging). */
  update: (changes: Record<string, string>, push?: boolean) => void;
}

export function useListParams(maxSearch = 100): ListParams {
  const [params, setParams] = useSearchParams();
  // What the last update asked for, and on which render's address. react-router hands a
  // functional update this render's parameters, so two changes before the next render (two
  // filters picked in quick succession on a busy machine) kept only the second: the first
  // filter came back. A second update on the same render builds on the first's address.
  const asked = useRef<{ on: URLSearchParams; next: URLSearchParams } | null>(null);
  const page = Math.max(1, Math.floor(Number(params.get('page'))) || 1);
  const q = params.get('q') ?? '';
  const trimmed = q.trim().slice(0, maxSearch);
  return {
    page,
    q,
    search: trimmed === '' ? undefined : trimmed,
    pick: <T extends string>(key: string, allowed: readonly T[]) => {
      const value = params.get(key);
      return allowed.find((a) => a === value);
    },
    update: (changes, push = false) => {
      const next = new URLSearchParams(asked.current?.on === params ? asked.current.next : params);
      for (const [key, value] of Object.entries(changes)) {
        if (value) next.set(key, value);
        else next.delete(key);
      }
      if (!('page' in changes)) next.delete('page');
      asked.current = { on: params, next };
      setParams(next, { replace: !push });
    },
  };
}

/** A search box that writes `q` into the address once typing pauses, and follows the address when it changes elsewhere. */
export function ListSearch({
  list,
  label,
  placeholder,
  maxLength = 100,
}: {
  list: Pick<ListParams, 'q' | 'update'>;
  label: string;
  placeholder?: string;
  maxLength?: number;
}) {
  const { q, update } = list;
  const [text, setText] = useState(q);
  const settled = useDebounced(text);
  // The address changed from elsewhere (back, "Clear search"): the box follows it.
  useEffect(() => setText((typed) => (typed.trim() === q.trim() ? typed : q)), [q]);
  useEffect(() => {
    if (settled.trim() !== q.trim()) update({ q: settled.trim() });
    // Only a settled change of the text writes the address; `q` catching up must not loop.
  }, [settled]);
  return (
    <Field
      label={label}
      type="search"
      placeholder={placeholder}
      maxLength={maxLength}
      value={text}
      onChange={(e) => setText(e.target.value)}
      autoComplete="off"
    />
  );
}

/** A select that narrows the list by one parameter of the address; the option '' is "every value" and drops it. */
export function ListFilter<T extends string>({
  list,
  param,
  label,
  value,
  options,
}: {
  list: Pick<ListParams, 'update'>;
  param: string;
  label: string;
  value: T | undefined;
  options: readonly { value: T | ''; label: string }[];
}) {
  return (
    <SelectField label={label} value={value ?? ''} onChange={(e) => list.update({ [param]: e.target.value })}>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </SelectField>
  );
}

/** The search box and the list's filters, as one landmark. */
export function ListToolbar({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="list-toolbar" role="search" aria-label={label}>
      {children}
    </div>
  );
}

/**
 * "26–50 of 200 projects matching “docs”": which rows of how many, for a table's caption.
 * `pending` while the rows on screen are the previous query's (kept until the new answer
 * arrives): the search and the range come from different queries then, so the caption
 * says the list is updating rather than pair the new search with the old rows.
 */
export function ListRange({
  meta,
  shown,
  noun,
  search,
  pending = false,
}: {
  meta: { page: number; limit: number; total: number };
  shown: number;
  /** Singular and plural, e.g. ['project', 'projects']. */
  noun: readonly [string, string];
  search?: string;
  pending?: boolean;
}) {
  if (pending) return <>Updating the {noun[1]}…</>;
  const first = (meta.page - 1) * meta.limit + 1;
  return (
    <>
      {formatNumber(first)}–{formatNumber(first + shown - 1)} of {formatNumber(meta.total)} {meta.total === 1 ? noun[0] : noun[1]}
      {search !== undefined ? ` matching “${search}”` : ''}
    </>
  );
}

/** The empty state of a filtered list: what matched nothing, and the way back to the whole list. */
export function NoMatch({ search, noun, onClear }: { search: string | undefined; noun: string; onClear: () => void }) {
  return (
    <div className="empty">
      <p role="status">
        {search !== undefined ? (
          <>
            No {noun} matches “{search}”.
          </>
        ) : (
          <>No {noun} matches this filter.</>
        )}
      </p>
      <button type="button" onClick={onClear}>
        {search !== undefined ? 'Clear search' : 'Show all'}
      </button>
    </div>
  );
}
