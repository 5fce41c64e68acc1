import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';

/** Every query on git_deliveries. */
@Injectable()
export class GitDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records a delivery; false when this project already has one of that id (a redelivery). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, '72d3162e-cc78-11e3-81ab-4c9367dc0958', 'github', 'push'] })
  async claim(projectId: string, deliveryId: string, forge: string, event: string): Promise<boolean> {
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO git_deliveries (project_id, delivery_id, forge, event) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING delivery_id`,
      [projectId, deliveryId, forge, event],
    );
    return inserted.length > 0;
  }

  /** Forgets a delivery whose action failed, so the forge's redelivery is acted on. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, '72d3162e-cc78-11e3-81ab-4c9367dc0958'] })
  async release(projectId: string, deliveryId: string): Promise<void> {
    await this.dataSource.query('DELETE FROM git_deliveries WHERE project_id = $1 AND delivery_id = $2', [projectId, deliveryId]);
  }

  /** Deletes deliveries recorded before `before`; how many. */
  @GenerateSql({ inTransaction: true, params: () => [new Date(0)] })
  async purgeBefore(before: Date): Promise<number> {
    const [, count] = (await this.dataSource.query('DELETE FROM git_deliveries WHERE created_at < $1', [before])) as [unknown, number];
    return count;
  }
}
