import { Injectable } from '@nestjs/common';

import { csvRow } from '../common/csv';
import { badRequest, notFound } from '../common/errors';
import { type Paginated, paginated } from '../common/pagination';
import type { Principal } from '../shared/principal';
import { type AuditFilter, AuditRepository, type AuditRow } from './audit.repository';
import { type AuditEntryView, auditEntryView, type AuditVerifyView } from './audit.view';
import { ChainCheck } from './chain-check';
import type { AuditFilterQueryDto } from './dto/audit-query.dto';

/** Rows read per query by the export and by verify: memory stays flat whatever the log's size. */
const BATCH = 500;
const CSV_HEADER = [
  'seq',
  'id',
  'at',
  'actorType',
  'actorId',
  'actorLabel',
  'action',
  'targetType',
  'targetId',
  'targetLabel',
  'ip',
  'userAgent',
  'requestId',
  'changes',
];

/** The audit log's read side (issue 32): the list, the CSV export and the chain check of one workspace. */
@Injectable()
export class AuditQueryService {
  constructor(private readonly repository: AuditRepository) {}

  async list(principal: Principal, workspaceId: string, query: AuditFilterQueryDto & { page: number; limit: number }): Promise<Paginated<AuditEntryView>> {
    const filter = this.filter(principal, workspaceId, query);
    const offset = (query.page - 1) * query.limit;
    const [total, rows] = await Promise.all([this.repository.count(workspaceId, filter), this.repository.page(workspaceId, filter, query.limit, offset)]);
    return paginated(rows.map(auditEntryView), total, query.page, query.limit);
  }

  /** Every matching entry as CSV lines, newest first, read in batches as the client takes them. */
  export(principal: Principal, workspaceId: string, query: AuditFilterQueryDto): { filename: string; lines: AsyncGenerator<string> } {
    const filter = this.filter(principal, workspaceId, query);
    return { filename: `${workspaceId}-audit-log.csv`, lines: this.csvLines(workspaceId, filter) };
  }

  /**
   * Walks the chain from where retention last cut it to its recorded end, recomputing
   * each entry's hash in the database (the one definition, `audit_entry_hash`). The first
   * link that fails is reported; the walk goes on to count the entries.
   */
  async verify(principal: Principal, workspaceId: string): Promise<AuditVerifyView> {
    this.check(principal, workspaceId);
    const head = await this.repository.head(workspaceId);
    const start = { seq: Number(head?.pruned_seq ?? 0), hash: head?.pruned_hash ?? '' };
    const check = new ChainCheck(start, head ? { seq: Number(head.seq), hash: head.last_hash } : null);
    for (let after = start.seq; ;) {
      const links = await this.repository.linksAfter(workspaceId, after, BATCH);
      for (const link of links) {
        after = Number(link.seq);
        check.add({ id: link.id, seq: after, prevHash: link.prev_hash, hash: link.hash, recomputed: link.recomputed });
      }
      if (links.length < BATCH) break;
    }
    return { ...check.verdict(), headHash: head?.last_hash ?? null };
  }

  private async *csvLines(workspaceId: string, filter: AuditFilter): AsyncGenerator<string> {
    yield csvRow(CSV_HEADER);
    let before = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const rows = await this.repository.batchBefore(workspaceId, filter, before, BATCH);
      for (const row of rows) yield csvRow(csvCells(row));
      if (rows.length < BATCH) return;
      before = Number(rows[rows.length - 1].seq);
    }
  }

  private filter(principal: Principal, workspaceId: string, query: AuditFilterQueryDto): AuditFilter {
    this.check(principal, workspaceId);
    const from = query.from === undefined ? undefined : new Date(query.from);
    const to = query.to === undefined ? undefined : new Date(query.to);
    for (const [name, date] of [
      ['from', from],
      ['to', to],
    ] as const)
      if (date && Number.isNaN(date.getTime())) throw badRequest(`${name} is not a date JavaScript can represent`);
    if (from && to && from > to) throw badRequest(`from (${query.from}) must not be after to (${query.to})`);
    return { from, to, actor: query.actor, action: query.action, target: query.target };
  }

  /** Another workspace's log is a 404 like any other of its objects. */
  private check(principal: Principal, workspaceId: string): void {
    if (principal.workspaceId !== workspaceId) throw notFound('Workspace', workspaceId);
  }
}

function csvCells(row: AuditRow): string[] {
  const view = auditEntryView(row);
  return [
    String(view.seq),
    view.id,
    view.at,
    view.actor.type,
    view.actor.id ?? '',
    view.actor.label,
    view.action,
    view.target?.type ?? '',
    view.target?.id ?? '',
    view.target?.label ?? '',
    view.ip ?? '',
    view.userAgent ?? '',
    view.requestId ?? '',
    view.changes.join(' '),
  ];
}
