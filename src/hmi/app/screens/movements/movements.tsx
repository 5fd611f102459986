import { useSignal } from '@preact/signals';
import { useMemo } from 'preact/hooks';
import { Toasts, useToast } from '../../feedback.tsx';
import { t } from '../../i18n.ts';
import { ListView, useLiveList } from '../../lists/list-view.tsx';
import { LiveList } from '../../lists/live-list.ts';
import { wallboard } from '../../prefs.ts';
import type { ScreenProps } from '../../screens.ts';
import { workOutcome } from '../../work-card.ts';
import { MovementCard } from './movement-card.tsx';
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

  useLiveList(list, EVENTS);

  const outcome = workOutcome(list, toast);

  return (
    <section class="screen work movements" aria-labelledby="movements-title">
      <div class="screen-head">
        <h1 id="movements-title">{t('movements.title')}</h1>
      </div>
      {!wallboard.value && <MovementFilterForm filter={filter.value} onApply={(f) => (filter.value = f)} />}
      <ListView
        list={list}
        listClass="work-list"
        labelledBy="movements-title"
        empty={<p class="empty work-none">{t('movements.none')}</p>}
        item={(m) => <MovementCard key={m.pKey} movement={m} outcome={outcome} />}
      />
      <Toasts toast={toast} />
    </section>
  );
}
