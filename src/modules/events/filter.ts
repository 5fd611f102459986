import type { SubjectKind } from '../../core/event-catalogue.ts';
import { expandTypes, requireSubjectKind } from './history.ts';

// What a live stream is sent: events of some types, about some subjects. The same
// predicate picks the events a stream is sent live and those it is replayed from the
// log, so that a reconnect neither misses nor adds any.

/** True when the stream wants an event of this type about this subject. */
export type StreamFilter = (type: string, subjectKind: string, subjectKey: string) => boolean;

export interface StreamFilterInput {
  /** Type names or prefixes ending in `*` (history.ts `expandTypes`); all types when absent. */
  types?: readonly string[] | undefined;
  /** The kind of the events' own subject. */
  subjectKind?: SubjectKind | undefined;
  /** The subject's key, or a prefix of keys ending in `*` (`HALL/0001/*`); needs `subjectKind`. */
  subject?: string | undefined;
}

/** The filter of a stream; 400 for a type that names no event, or a subject without its kind. */
export function streamFilter({ types, subjectKind, subject }: StreamFilterInput): StreamFilter {
  const expanded = expandTypes(types);
  const wantedTypes = expanded && new Set(expanded);
  requireSubjectKind({ subjectKind, subject });
  const prefix = subject?.endsWith('*') ? subject.slice(0, -1) : undefined;
  const aboutKey = (key: string) => subject === undefined || (prefix !== undefined ? key.startsWith(prefix) : key === subject);
  return (type, kind, key) => (!wantedTypes || wantedTypes.has(type)) && (subjectKind === undefined || (kind === subjectKind && aboutKey(key)));
}
