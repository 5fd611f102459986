import type { ComponentChildren, VNode } from 'preact';
import { useEffect } from 'preact/hooks';
import { Failure } from '../feedback.tsx';
import { t } from '../i18n.ts';
import { subscribe, type EventType, type LiveEvent } from '../live.ts';
import { wallboard } from '../prefs.ts';
import type { LiveList } from './live-list.ts';

// A live list on a screen: read when the screen shows it, kept up to date by the events
// that name its records, and drawn the same way everywhere (a failed read with a retry,
// loading, nothing, the records, `Show more`).

const pKeyOfEvent = (event: LiveEvent): string | undefined => {
  const pKey = (event.data as { pKey?: unknown }).pKey;
  return typeof pKey === 'string' ? pKey : undefined;
};

/**
 * Reads the list, and reads again each record an event names (`keyOfEvent`, the event's
 * pKey unless said otherwise); an event that names none, or a resync, reads it all again.
 */
export function useLiveList<T, E extends EventType>(
  list: LiveList<T>,
  events: readonly E[],
  keyOfEvent: (event: LiveEvent<E>) => string | undefined = pKeyOfEvent,
): void {
  useEffect(() => {
    void list.reload();
    return subscribe(
      events,
      (event) => {
        const key = keyOfEvent(event);
        if (key === undefined) void list.reload();
        else list.touch(key);
      },
      () => void list.reload(),
    );
  }, [list]);
}

interface ListViewProps<T> {
  list: LiveList<T>;
  /** The list element's own class: its layout (a grid of cards, lines). */
  listClass: string;
  /** What names the list: the id of its title, or a label. */
  labelledBy?: string;
  label?: string;
  /** Shown when the list has nothing (to show); without it, the list is drawn empty. */
  empty?: ComponentChildren;
  item: (item: T) => VNode;
}

/** The list as shown; `Show more` while the API has more, except on a wallboard (no controls). */
export function ListView<T>({ list, listClass, labelledBy, label, empty, item }: ListViewProps<T>) {
  const shown = list.shown.value;
  const error = list.error.value;
  return (
    <>
      {error !== undefined && <Failure error={error} retry={() => void list.reload()} />}
      {shown === undefined ? (
        error === undefined && <p class="empty">{t('screen.loading')}</p>
      ) : shown.length === 0 && list.next.value === undefined && empty !== undefined ? (
        empty
      ) : (
        <ul class={`plain-list ${listClass}`} aria-labelledby={labelledBy} aria-label={label} aria-busy={list.busy.value}>
          {shown.map(item)}
        </ul>
      )}
      {list.next.value !== undefined && shown !== undefined && !wallboard.value && (
        <button type="button" class="more" disabled={list.busy.value} onClick={() => void list.more()}>
          {t('action.more')}
        </button>
      )}
    </>
  );
}
