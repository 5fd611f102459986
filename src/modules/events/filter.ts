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

/**
 * Filters by what they select, so that streams that ask for the same events (every HMI
 * page of one kind) share one: the streams frame and encode a delivery once per filter
 * (streams.ts), not once per stream. Bounded: past it a filter is made afresh, and only
 * costs that sharing.
 */
const shared = new Map<string, StreamFilter>();
const SHARED_FILTERS = 1000;

/** The filter of a stream; 400 for a type that names no event, or a subject without its kind. */
export function streamFilter({ types, subjectKind, subject }: StreamFilterInput): StreamFilter {
  const expanded = expandTypes(types);
  requireSubjectKind({ subjectKind, subject });
  const key = JSON.stringify([expanded ? [...expanded].sort() : null, subjectKind ?? null, subject ?? null]);
  let filter = shared.get(key);
  if (!filter) {
    filter = filterOf(expanded, subjectKind, subject);
    if (shared.size < SHARED_FILTERS) shared.set(key, filter);
  }
  return filter;
}

function filterOf(expanded: readonly string[] | undefined, subjectKind: SubjectKind | undefined, subject: string | undefined): StreamFilter {
  const wantedTypes = expanded && new Set(expanded);
  const prefix = subject?.endsWith('*') ? subject.slice(0, -1) : undefined;
  const aboutKey = (key: string) => subject === undefined || (prefix !== undefined ? key.startsWith(prefix) : key === subject);
  return (type, kind, key) => (!wantedTypes || wantedTypes.has(type)) && (subjectKind === undefined || (kind === subjectKind && aboutKey(key)));
}
