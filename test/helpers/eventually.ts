/**
 * Retries `attempt` until it passes or `ms` run out (then its last error is thrown): for
 * what another instance hears over LISTEN/NOTIFY a moment later, or a server that has not
 * yet seen a client's close.
 */
export async function eventually<T>(attempt: () => Promise<T>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
