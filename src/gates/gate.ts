import type { ServerResponse } from 'node:http';

import type { GateType } from '../projects/project.entity';

/**
 * What a gate needs of a site: the router's site state (SiteState) has all of it, so
 * the router passes its own state while gates/ never imports sites/.
 */
export interface GatedSite {
  readonly projectId: string;
  readonly name: string;
  readonly gateType: GateType;
  /** Bumped by every gate change: cookies signed for an earlier version stop working. */
  readonly gateVersion: number;
  readonly passwordHash: string | null;
  /** A preview address: its gate events are not the site's traffic. */
  readonly preview?: true;
  /** Cookie header → access expiry (unix seconds), memoised for exactly as long as this state lives. */
  grants?: Map<string, number>;
}

/** One kind of gate (password, email): what it does with its form's submission. */
export interface Gate {
  readonly type: Exclude<GateType, 'none'>;
  /** Answers a form post to GATE_PATH (never called with access already granted). */
  submit(site: GatedSite, form: URLSearchParams, ip: string, res: ServerResponse): Promise<void>;
}
