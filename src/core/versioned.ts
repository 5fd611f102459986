import { staleVersion } from '../core/errors.ts';

// Every persistent resource has a technical key and a version counter (the API conventions (README, "API"):
// `pKey`, `ol`, `createDt`, `lastModifiedDt`). Stores map their rows with these helpers;
// services check the `ol` an update carries.

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

/** An update that carries `ol` must carry the current one; without `ol` it applies (last writer wins). */
export function checkVersion(what: string, current: Versioned, sent: number | undefined): void {
  if (sent !== undefined && sent !== current.ol) throw staleVersion(what, current.pk, sent, current.ol);
}
