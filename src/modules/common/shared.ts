import { ApiError, staleVersion } from '../../http/errors.ts';
import type { Link } from '../../http/hal.ts';

// Pieces every resource of the common module shares: the technical fields of the
// spec's conventions, and the optimistic-lock check of updates.

export interface Versioned {
  pk: string;
  ol: number;
  createDt: string;
  lastModifiedDt: string;
}

export interface VersionedRow {
  pk: string;
  ol: number;
  create_dt: string;
  last_modified_dt: string;
}

export const versionedFrom = (row: VersionedRow): Versioned => ({
  pk: row.pk,
  ol: row.ol,
  createDt: row.create_dt,
  lastModifiedDt: row.last_modified_dt,
});

/** `pKey`, `ol`, `createDt`, `lastModifiedDt` and the links of a representation. */
export const technical = (entity: Versioned, links: Link[]) => ({
  pKey: entity.pk,
  ol: entity.ol,
  createDt: entity.createDt,
  lastModifiedDt: entity.lastModifiedDt,
  links,
});

/** An update that carries `ol` must carry the current one; without `ol` it applies (last writer wins). */
export function checkVersion(what: string, current: Versioned, sent: number | undefined): void {
  if (sent !== undefined && sent !== current.ol) throw staleVersion(what, current.pk, sent, current.ol);
}

/** 409 when a delete would leave other records pointing at nothing. */
export const inUse = (key: string, message: string, obj: readonly unknown[]) => new ApiError(409, key, message, { obj });

/** Copies the defined values only: optional JSON fields that are absent stay absent. */
export function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
