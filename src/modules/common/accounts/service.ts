import { DomainError } from '../../../core/errors.ts';
import { COMMON_KEYS } from '../errors.ts';
import type { Account, AccountStore } from './store.ts';

// Accounts (cost centres) are read-only over the API: the default one is seeded at
// first start and used wherever a request names no account.

const notFound = (value: string) =>
  new DomainError(404, COMMON_KEYS.accountNotFound, `Account with identifier or name [${value}] does not exist`, {
    obj: [value],
  });

export function createAccountService(store: AccountStore) {
  return {
    /** Every account by identifier: pages, or the whole list. */
    list: () => store.list(),

    byPKey(pKey: string): Account {
      const account = store.byPk(pKey);
      if (!account) {
        throw new DomainError(404, COMMON_KEYS.accountNotFoundByPKey, `Account with pKey [${pKey}] does not exist`, {
          obj: [pKey],
        });
      }
      return account;
    },

    byIdentifier(identifier: string): Account {
      const account = store.byIdentifier(identifier);
      if (!account) throw notFound(identifier);
      return account;
    },

    byName(name: string): Account {
      const account = store.byName(name);
      if (!account) throw notFound(name);
      return account;
    },

    defaultAccount(): Account {
      const account = store.byDefault();
      if (!account) throw new DomainError(404, COMMON_KEYS.noDefaultAccount, 'No default account exists');
      return account;
    },

    /** The account a request names by identifier, or the default one when it names none. */
    resolve(identifier: string | undefined): Account {
      return identifier === undefined ? this.defaultAccount() : this.byIdentifier(identifier);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
