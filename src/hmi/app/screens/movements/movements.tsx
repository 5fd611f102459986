import { useSignal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { t } from '../../i18n.ts';
import { subscribe } from '../../live.ts';
import { wallboard } from '../../prefs.ts';
import type { ScreenProps } from '../../screens.ts';
import { Failure, Toasts, useToast } from './feedback.tsx';
import { LiveList } from './live-list.ts';
import { MovementCard, type MovementOutcome } from './movement-card.tsx';
import { MovementFilterForm } from './movement-filter.tsx';
import { movementList, NO_FILTER, type Movement, type MovementFilter } from './movement.ts';

// The movements screen (docs/hmi.md): manual moves of transport units, filtered as the
// API filters them, paged, following the movement events without a reload; activate,
// complete onto a location and cancel for users with movements:write.

const EVENTS = ['movement.created', 'movement.changed', 'movement.completed', 'movement.cancelled'] as const;

export default function MovementsScreen(_: ScreenProps) {
  const filter = useSignal<MovementFilter>(NO_FILTER);
  const toast = useToast();
  // A new filter is a new list: the API reads it in its own order.
  const list = useMemo(() => new LiveList<Movement>(movementList(filter.value)), [filter.value]);

  useEffect(() => {
    void list.reload();
    return subscribe(
      EVENTS,
      (event) => list.touch(String(event.data.pKey)),
      () => void list.reload(),
    );
  }, [list]);

  const outcome: MovementOutcome = {
    done: (movement, message) => {
      list.put(movement);
      toast.value = { kind: 'done', message };
    },
    failed: (pKey, message) => {
      toast.value = { kind: 'failed', message };
      // The refusal may come from a change not seen yet: show the movement as it is now.
      list.touch(pKey);
    },
  };

  const shown = list.shown.value;
  return (
    <section class="screen work movements" aria-labelledby="movements-title">
      <div class="screen-head">
        <h1 id="movements-title">{t('movements.title')}</h1>
      </div>
      {!wallboard.value && <MovementFilterForm filter={filter.value} onApply={(f) => (filter.value = f)} />}
      {list.error.value !== undefined && <Failure error={list.error.value} retry={() => void list.reload()} />}
      {shown === undefined ? (
        list.error.value === undefined && <p class="empty">{t('screen.loading')}</p>
      ) : shown.length === 0 && list.next.value === undefined ? (
        <p class="empty work-none">{t('movements.none')}</p>
      ) : (
        <ul class="work-list" aria-labelledby="movements-title" aria-busy={list.busy.value}>
          {shown.map((m) => (
            <MovementCard key={m.pKey} movement={m} outcome={outcome} />
          ))}
        </ul>
      )}
      {list.next.value !== undefined && shown !== undefined && !wallboard.value && (
        <button type="button" class="more" disabled={list.busy.value} onClick={() => void list.more()}>
          {t('action.more')}
        </button>
      )}
      <Toasts toast={toast} />
    </section>
  );
}
