import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import type { Email } from '../shared/email';
import { User } from './user.entity';

/** What may change on an account after it was created. */
export type UserChanges = Partial<Pick<User, 'name' | 'email' | 'emailVerifiedAt' | 'passwordHash'>>;

/**
 * Every query on users. Emails arrive normalised (src/shared/email.ts): the table
 * stores and compares only that form.
 */
@Injectable()
export class UsersRepository {
  @GenerateSql({ params: (f) => [f.manager, f.userId] })
  findById(manager: EntityManager, id: string): Promise<User | null> {
    return manager.findOneBy(User, { id });
  }

  @GenerateSql({ params: (f) => [f.manager, f.email] })
  findByEmail(manager: EntityManager, email: Email): Promise<User | null> {
    return manager.findOneBy(User, { email });
  }

  /** The row locked for the rest of the caller's transaction: changes of one account queue here. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.userId] })
  lockById(manager: EntityManager, id: string): Promise<User | null> {
    return manager.findOne(User, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  @GenerateSql({ params: (f) => [f.manager, f.email] })
  emailTaken(manager: EntityManager, email: Email): Promise<boolean> {
    return manager.existsBy(User, { email });
  }

  /** Fails with UQ_users_email when the address is taken (the caller turns that into its 409). */
  @GenerateSql({
    params: (f) => [f.manager, { id: 'usr_sqlsnapshot00000000000000', email: f.email, name: 'Fixture', passwordHash: 'x', emailVerifiedAt: null }],
  })
  insert(manager: EntityManager, row: Pick<User, 'id' | 'email' | 'name' | 'passwordHash' | 'emailVerifiedAt'>): Promise<User> {
    return manager.save(manager.create(User, row));
  }

  @GenerateSql(
    { name: 'name', params: (f) => [f.manager, f.userId, { name: 'Fixture' }] },
    { name: 'email', params: (f) => [f.manager, f.userId, { email: f.email }] },
    { name: 'verified', params: (f) => [f.manager, f.userId, { emailVerifiedAt: new Date(0) }] },
    { name: 'password and verified', params: (f) => [f.manager, 'usr_sqlsnapshot00000000000000', { passwordHash: 'x', emailVerifiedAt: new Date(0) }] },
  )
  async update(manager: EntityManager, id: string, changes: UserChanges): Promise<void> {
    await manager.update(User, { id }, changes);
  }
}
