import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { uniqueViolation } from '../common/db-errors';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import type { Email } from '../shared/email';
import type { User } from './user.entity';
import { usersError } from './users.errors';
import { UsersRepository } from './users.repository';

@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * With REQUIRE_VERIFIED_EMAIL=true, paid plans and invitations wait until the person
   * confirmed their address; API tokens act for their workspace and are not asked.
   */
  async assertVerifiedIfRequired(userId: string | undefined, action: string): Promise<void> {
    if (!this.config.REQUIRE_VERIFIED_EMAIL || !userId) return;
    const user = await this.findById(userId);
    if (user && !user.emailVerifiedAt) throw emailNotVerified(action);
  }

  findByEmail(email: Email): Promise<User | null> {
    return this.users.findByEmail(this.dataSource.manager, email);
  }

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<User | null> {
    return this.users.findById(manager, id);
  }

  /** `passwordHash` is already hashed. */
  async create(manager: EntityManager, input: { email: Email; name: string; passwordHash: string }): Promise<User> {
    const email = input.email;
    const taken = () => usersError('email_taken', `An account with the email ${email} already exists`);
    if (await this.users.emailTaken(manager, email)) throw taken();
    try {
      return await this.users.insert(manager, { id: newId('usr'), email, name: input.name, passwordHash: input.passwordHash, emailVerifiedAt: null });
    } catch (err) {
      // Two registrations racing for one email: the unique index decides.
      if (uniqueViolation(err) === 'UQ_users_email') throw taken();
      throw err;
    }
  }
}

export const emailNotVerified = (action: string) =>
  usersError(
    'email_not_verified',
    `Confirm your email address before you ${action}: follow the link mailed to you, or ask for a new one with POST /auth/verify-email/resend`,
  );
