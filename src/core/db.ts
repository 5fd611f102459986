import Database from 'better-sqlite3';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  file: string;
  busyTimeoutMs: number;
  /** The loaded SQLite addon (single binary) or a path to it; undefined = the package's own prebuild. */
  nativeBinding?: unknown;
}

/**
 * Opens the one writer connection of the process.
 *
 * - WAL: readers (backups, the HMI) never block the writer.
 * - synchronous=FULL: an acknowledged write survives a power cut; edge boxes lose power.
 * - foreign_keys=ON: SQLite leaves it off by default, we rely on it for integrity.
 */
export function openDatabase(options: OpenDatabaseOptions): Db {
  const db = new Database(options.file, {
    timeout: options.busyTimeoutMs,
    nativeBinding: options.nativeBinding as string | undefined,
  });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  return db;
}

/** SQLite stores booleans as 0/1. */
export const bool = (value: unknown): boolean => value === 1 || value === true;
export const bit = (value: boolean): 0 | 1 => (value ? 1 : 0);

/**
 * Turns a wildcard pattern of the API (`%` any run, `_` one character, as in SQL LIKE)
 * into a GLOB pattern: GLOB is case-sensitive, like coordinates and names are, and
 * characters GLOB treats specially are matched literally.
 */
export function likeToGlob(pattern: string): string {
  let out = '';
  for (const ch of pattern) {
    if (ch === '%') out += '*';
    else if (ch === '_') out += '?';
    else if (ch === '*' || ch === '?' || ch === '[' || ch === ']') out += `[${ch}]`;
    else out += ch;
  }
  return out;
}

/** True when a text holds a wildcard of the API. */
export const hasWildcard = (text: string): boolean => text.includes('%') || text.includes('_');
