import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { alarmText, type AlarmWords } from '../../alarm-text.ts';
import { errorText, formatTime, hasText, t } from '../../i18n.ts';
import { page } from '../../lists/pages.ts';
import type { LiveEvent } from '../../live.ts';

// The latest events about a location (GET /v1/events/history, docs/events.md): its
// own and those that name it (a unit's move, an alarm). The history comes oldest
// first, so it is asked for a short time back first and further back only while it
// has too little: a busy conveyor location finds its latest events in the first
// minutes, a quiet rack slot looks back up to 30 days.

const SHOWN = 12;
const WINDOWS_MIN = [5, 60, 24 * 60, 30 * 24 * 60];
const PAGE = 200;
/** Pages read per window at most: the newest of a busy window are in its last pages. */
const PAGES = 5;

async function latest(id: string): Promise<LiveEvent[]> {
  let found: LiveEvent[] = [];
  for (const minutes of WINDOWS_MIN) {
    const from = new Date(Date.now() - minutes * 60_000).toISOString();
    found = [];
    let after: string | undefined;
    for (let n = 0; n < PAGES; n++) {
      const got = await page<LiveEvent>('/v1/events/history', { subjectKind: 'location', subject: id, from }, PAGE, after);
      found = [...found, ...got.items].slice(-SHOWN);
      after = got.next;
      if (!after) break;
    }
    if (found.length >= SHOWN) break;
  }
  return found.reverse();
}

const typeText = (type: string) => (hasText(`map.event.${type}`) ? t(`map.event.${type}`) : type);

function valueText(field: string, value: unknown): string {
  if (field === 'incomingActive' || field === 'outgoingActive') return t(value ? 'map.open' : 'map.locked');
  return String(value);
}

/** What changed, in a line: a flag from → to, a unit from → to. */
function what(e: LiveEvent): string {
  const d = e.data as Record<string, unknown>;
  if (typeof d.field === 'string') {
    const name = hasText(`map.fieldName.${d.field}`) ? t(`map.fieldName.${d.field}`) : d.field;
    return `${name}: ${valueText(d.field, d.from)} → ${valueText(d.field, d.value)}`;
  }
  if (typeof d.barcode === 'string') return typeof d.from === 'string' && typeof d.to === 'string' ? `${d.barcode}: ${d.from} → ${d.to}` : d.barcode;
  // An alarm about the location, in the user's words.
  if (e.type.startsWith('alarm.') && typeof d.kind === 'string' && typeof d.message === 'string') return alarmText(d as unknown as AlarmWords);
  if (typeof d.message === 'string') return d.message;
  return '';
}

/** `version` changes whenever the location does: the list is read again then. */
export function RecentEvents({ id, version }: { id: string; version: unknown }) {
  const events = useSignal<LiveEvent[] | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  useEffect(() => {
    let current = true;
    // A burst of changes (a PLC locking and releasing) reads once.
    const timer = setTimeout(() => {
      latest(id).then(
        (list) => {
          if (!current) return;
          events.value = list;
          error.value = undefined;
        },
        (err) => current && (error.value = err),
      );
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [id, version]);

  if (error.value !== undefined) return <p class="failure">{errorText(error.value)}</p>;
  if (!events.value) return <p class="muted">{t('screen.loading')}</p>;
  if (events.value.length === 0) return <p class="muted">{t('map.noEvents')}</p>;
  return (
    <ol class="plain-list map-events">
      {events.value.map((e) => (
        <li key={e.id} data-type={e.type}>
          <time dateTime={e.at}>{formatTime(e.at)}</time>
          <strong>{typeText(e.type)}</strong>
          <span>{what(e)}</span>
          <span class="muted">{t('map.eventsBy', { name: e.actor.name })}</span>
          {e.reason && <q class="comment">{e.reason}</q>}
        </li>
      ))}
    </ol>
  );
}
