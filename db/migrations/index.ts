import type { Migration } from '../../src/core/migrations.ts';
import foundation from './0010-foundation.sql';

// Every migration file, in order. The files are bundled into the binary as text; a
// test checks that this list names every file of the folder.
export const migrations: readonly Migration[] = [{ version: 10, name: '0010-foundation', sql: foundation }];
