// The events of the log (docs/events.md) as the live stream and the history send them:
// the catalogue of types with each one's subject and data. Import with `import type`.

export type { EventCatalogue, EventRecord, EventType, Subject, SubjectKind } from '../core/event-catalogue.ts';
