import { useSignal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { Toasts, useToast } from '../../feedback.tsx';
import { t } from '../../i18n.ts';
import { ListView, useLiveList } from '../../lists/list-view.tsx';
import { LiveList } from '../../lists/live-list.ts';
import { wallboard } from '../../prefs.ts';
import type { ScreenProps } from '../../screens.ts';
import { workOutcome } from '../../work-card.ts';
import { TaskCard } from './task-card.tsx';
import { NO_FILTER, TASK_STATES, taskList, type StateChoice, type Task, type TaskFilter } from './task.ts';

// The tasks screen (docs/hmi.md): the appliance's tasks, oldest first, filtered by state
// and a search, paged, following the task events without a reload; start, pause,
// resume and finish for users with tasks:write.

const EVENTS = ['task.created', 'task.changed', 'task.stateChanged'] as const;
const STATE_CHOICES: readonly StateChoice[] = ['open', ...TASK_STATES, 'all'];

export default function TasksScreen(_: ScreenProps) {
  const filter = useSignal<TaskFilter>(NO_FILTER);
  const toast = useToast();
  // One list for the screen: the filter is applied here, over the pages read.
  const list = useMemo(() => new LiveList<Task>(taskList(() => filter.value)), []);

  useLiveList(list, EVENTS);
  // A narrower filter may leave less than a page on screen: read on.
  useEffect(() => list.fill(), [filter.value, list.items.value]);

  const outcome = workOutcome(list, toast);

  const f = filter.value;
  return (
    <section class="screen work tasks" aria-labelledby="tasks-title">
      <div class="screen-head">
        <h1 id="tasks-title">{t('tasks.title')}</h1>
      </div>
      {!wallboard.value && (
        <form class="framed work-filter" role="search" aria-label={t('tasks.filter')} onSubmit={(e) => e.preventDefault()}>
          <div class="work-field">
            <label for="task-state">{t('tasks.state')}</label>
            <select id="task-state" value={f.state} onChange={(e) => (filter.value = { ...f, state: e.currentTarget.value as StateChoice })}>
              {STATE_CHOICES.map((s) => (
                <option key={s} value={s}>
                  {t(s === 'open' || s === 'all' ? `tasks.filter.${s}` : `tasks.state.${s}`)}
                </option>
              ))}
            </select>
          </div>
          <div class="work-field work-wide">
            <label for="task-search">{t('tasks.filter.text')}</label>
            <input
              id="task-search"
              type="search"
              value={f.text}
              autoComplete="off"
              spellcheck={false}
              onInput={(e) => (filter.value = { ...f, text: e.currentTarget.value })}
            />
          </div>
        </form>
      )}
      <ListView
        list={list}
        listClass="work-list"
        labelledBy="tasks-title"
        empty={<p class="empty work-none">{t((list.items.value ?? []).length === 0 ? 'tasks.noneAtAll' : 'tasks.none')}</p>}
        item={(task) => <TaskCard key={task.pKey} task={task} outcome={outcome} />}
      />
      <Toasts toast={toast} />
    </section>
  );
}
