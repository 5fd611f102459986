import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';

export interface Account extends Versioned {
  identifier: string;
  name: string;
  isDefault: boolean;
}

interface Row extends VersionedRow {
  identifier: string;
  name: string;
  is_default: number;
}

const COLUMNS = 'pk, identifier, name, is_default, ol, create_dt, last_modified_dt';

/**
 * Every account by identifier, in pages (core/listing.ts). Accounts are few by nature
 * (seeded, read-only over the API): the whole list is read at once on the writer's connection.
 */
const EVERY_ACCOUNT = new KeysetList<Row>({
  sql: `SELECT ${COLUMNS} FROM accounts WHERE identifier > @k0 ORDER BY identifier LIMIT @limit`,
  keyOf: (row) => [row.identifier],
  first: [''],
});

const toAccount = (row: Row): Account => ({
  ...versionedFrom(row),
  identifier: row.identifier,
  name: row.name,
  isDefault: row.is_default === 1,
});

export function createAccountStore(db: Db) {
  const s = {
    byPk: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM accounts WHERE pk = ?`),
    byIdentifier: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM accounts WHERE identifier = ?`),
    byName: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM accounts WHERE name = ?`),
    byDefault: db.prepare<[], Row>(`SELECT ${COLUMNS} FROM accounts WHERE is_default = 1`),
    count: db.prepare<[], number>('SELECT count(*) FROM accounts').pluck(),
    insert: db.prepare(
      `INSERT INTO accounts (pk, identifier, name, is_default, ol, create_dt, last_modified_dt)
       VALUES (@pk, @identifier, @name, @isDefault, 0, @now, @now)`,
    ),
  };
  const one = (row: Row | undefined) => (row ? toAccount(row) : undefined);
  return {
    list: (): Listing<Account> => EVERY_ACCOUNT.listing(db, {}, (rows) => rows.map(toAccount)),
    byPk: (pk: string) => one(s.byPk.get(pk)),
    byIdentifier: (identifier: string) => one(s.byIdentifier.get(identifier)),
    byName: (name: string) => one(s.byName.get(name)),
    byDefault: () => one(s.byDefault.get()),
    count: () => s.count.get()!,
    insert(identifier: string, name: string, isDefault: boolean, now: string): string {
      const pk = newPKey();
      s.insert.run({ pk, identifier, name, isDefault: isDefault ? 1 : 0, now });
      return pk;
    },
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
