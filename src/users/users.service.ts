import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { conflict } from '../common/errors';
import { uniqueViolation } from '../common/db-errors';
import { newId } from '../common/ids';
import { normalizeEmail } from './email';
import { User } from './user.entity';

@Injectable()
export class UsersService {
  constructor(private readonly dataSource: DataSource) {}

  findByEmail(email: string): Promise<User | null> {
    return this.dataSource.getRepository(User).findOneBy({ email: normalizeEmail(email) });
  }

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<User | null> {
    return manager.findOneBy(User, { id });
  }

  /** `passwordHash` is already hashed; the email is normalised here. */
  async create(manager: EntityManager, input: { email: string; name: string; passwordHash: string }): Promise<User> {
    const email = normalizeEmail(input.email);
    const taken = () => conflict(`An account with the email ${email} already exists`, 'email_taken');
    if (await manager.existsBy(User, { email })) throw taken();
    try {
      return await manager.save(manager.create(User, { id: newId('usr'), email, name: input.name, passwordHash: input.passwordHash }));
    } catch (err) {
      // Two registrations racing for one email: the unique index decides.
      if (uniqueViolation(err) === 'UQ_users_email') throw taken();
      throw err;
    }
  }
}
