import { commitTitle, forgeStatusLabel, formatDuration, isActive, readTextStream, shortSha, statusLabel, triggerLabel } from './builds';

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
}

describe('builds page helpers', () => {
  it('only queued and running builds are active', () => {
    expect(['queued', 'running', 'ready', 'failed', 'canceled', 'timed_out'].filter(isActive)).toEqual(['queued', 'running']);
  });

  it('labels, short shas and commit titles', () => {
    expect(statusLabel('timed_out')).toBe('timed out');
    expect(shortSha('0123456789abcdef')).toBe('0123456');
    expect(shortSha(null)).toBe('—');
    expect(commitTitle('Fix the header\n\nLong body')).toBe('Fix the header');
    expect(commitTitle(null)).toBe('');
  });

  it('triggers: manual, push, pull request with its number', () => {
    expect(triggerLabel({ trigger: 'manual', pullRequest: null })).toBe('manual');
    expect(triggerLabel({ trigger: 'push', pullRequest: null })).toBe('push');
    expect(triggerLabel({ trigger: 'pull_request', pullRequest: 12 })).toBe('pull request #12');
    expect(triggerLabel({ trigger: 'pull_request', pullRequest: null })).toBe('pull request');
  });

  it('forge status: nothing without one, posted, posting, or why it could not be posted', () => {
    expect(forgeStatusLabel({ forgeStatus: null, forgeError: null })).toBeNull();
    expect(forgeStatusLabel({})).toBeNull();
    expect(forgeStatusLabel({ forgeStatus: 'posted', forgeError: null })).toBe('posted to the forge');
    expect(forgeStatusLabel({ forgeStatus: 'pending', forgeError: null })).toBe('posting to the forge…');
    expect(forgeStatusLabel({ forgeStatus: 'failed', forgeError: 'GitHub answered 401 Bad credentials' })).toBe(
      'could not be posted: GitHub answered 401 Bad credentials',
    );
    expect(forgeStatusLabel({ forgeStatus: 'failed', forgeError: null })).toBe('could not be posted');
  });

  it('durations as people say them', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(-1)).toBe('—');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(42_300)).toBe('42 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(3_720_000)).toBe('1 h 02 min');
  });

  it('reads a streamed log piece by piece, a character split across chunks decoded once whole', async () => {
    const bytes = new TextEncoder().encode('2026-01-01T00:00:00.000Z [build] héllo ✓\n');
    const cut = bytes.indexOf(0xc3) + 1; // inside "é"
    const pieces: string[] = [];
    await readTextStream(streamOf([bytes.slice(0, cut), bytes.slice(cut, -3), bytes.slice(-3)]), (t) => pieces.push(t));
    expect(pieces.join('')).toBe('2026-01-01T00:00:00.000Z [build] héllo ✓\n');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((p) => !p.includes('\uFFFD'))).toBe(true);
  });

  it('stops reading when aborted', async () => {
    const controller = new AbortController();
    let pull: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        pull = c;
        c.enqueue(new TextEncoder().encode('first\n'));
      },
    });
    const seen: string[] = [];
    const reading = readTextStream(
      body,
      (t) => {
        seen.push(t);
        controller.abort();
      },
      controller.signal,
    );
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual(['first\n']);
    expect(pull).toBeDefined();
  });
});
