import { basename } from 'node:path';

/** The postmaster's PID: the first line of `postmaster.pid`. */
export function parsePostmasterPid(text: string): number | undefined {
  const pid = Number(text.split('\n')[0]?.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether a process's arguments are those of a postmaster serving `databaseDir`. */
export function isOurPostmaster(args: string[], databaseDir: string, canonical: (path: string) => string = (p) => p): boolean {
  if (args.length === 0 || basename(args[0]) !== 'postgres') return false;
  const d = args.indexOf('-D');
  return d >= 0 && d + 1 < args.length && canonical(args[d + 1]) === canonical(databaseDir);
}

/** The message of a server log line, without its timestamp and PID prefix. */
function message(line: string): string {
  const m = /(?:FATAL|PANIC|ERROR|LOG|DETAIL|HINT):\s+(.*)$/.exec(line);
  return (m ? m[1] : line).trim();
}

/**
 * One line that says why the embedded server exited during start-up and what to do,
 * from the last lines it logged.
 */
export function describePostgresFailure(tail: string[], ctx: { port: number; databaseDir: string; exit: number | string | null }): string {
  const text = tail.join('\n');
  if (/Address already in use|could not bind/i.test(text)) {
    return `The embedded PostgreSQL could not listen on 127.0.0.1:${ctx.port}: the port is in use. Set EMBEDDED_POSTGRES_PORT to a free port, or stop what listens there`;
  }
  const lock = /lock file "postmaster\.pid" already exists[\s\S]*?PID (\d+)/.exec(text);
  if (lock) {
    return `Another PostgreSQL (pid ${lock[1]}) is running on the data directory ${ctx.databaseDir}: stop it, or give this instance its own DATA_DIR`;
  }
  if (/pre-existing shared memory block/i.test(text)) {
    return `Processes of an earlier PostgreSQL on ${ctx.databaseDir} are still running: wait for them to exit (or kill them) and start again`;
  }
  if (/Permission denied/i.test(text)) {
    const line = tail.filter((l) => /Permission denied/i.test(l)).pop()!;
    return `The embedded PostgreSQL cannot use its files (${message(line)}): give the user it runs as access to ${ctx.databaseDir}, or set DATA_DIR elsewhere`;
  }
  const fatal = tail.filter((l) => /FATAL|PANIC/.test(l)).pop() ?? tail.filter((l) => /ERROR/.test(l)).pop() ?? tail[tail.length - 1];
  const why = fatal ? message(fatal) : `exit ${ctx.exit}`;
  return `The embedded PostgreSQL stopped during start-up (${why}; data in ${ctx.databaseDir}): fix that, start with LOG_LEVEL=debug to see its whole log, or set DATABASE_URL to use your own PostgreSQL`;
}
