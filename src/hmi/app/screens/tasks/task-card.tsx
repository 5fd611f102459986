import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { post } from '../../api.ts';
import { now } from '../../clock.ts';
import { errorText, formatAge, formatTime, t } from '../../i18n.ts';
import { wallboard } from '../../prefs.ts';
import { can } from '../../session.ts';
import { Confirm } from '../../confirm.tsx';
import { useRefocus, workLook, type WorkOutcome } from '../../work-card.ts';
import { offered, type Operation, type Task } from './task.ts';

// One task: its id, type, description, state and dates; and, for users with
// tasks:write, the moves the appliance offers in its state (its links): start, pause,
// resume, and finish after a question (a finished task is a closed record).

type TaskOutcome = WorkOutcome<Task>;

export function TaskCard({ task, outcome }: { task: Task; outcome: TaskOutcome }) {
  const confirming = useSignal(false);
  const busy = useSignal(false);
  const card = useRef<HTMLLIElement>(null);
  /** Back from the question, or a move done: the focus returns to the card's buttons (the pressed one is gone). */
  const refocus = useRefocus(card);
  const back = () => {
    confirming.value = false;
    refocus();
  };
  const moves = can('tasks:write') && !wallboard.value ? offered(task) : [];

  const move = async (operation: Operation) => {
    busy.value = true;
    try {
      const moved = (await post<Task>(`/tasks/${encodeURIComponent(task.pKey)}/${operation}`)).body;
      confirming.value = false;
      outcome.done(moved, t(`tasks.done.${operation}`, { task: moved.taskId }));
      refocus();
    } catch (err) {
      outcome.failed(task.pKey, errorText(err));
    } finally {
      busy.value = false;
    }
  };

  const id = task.taskId;
  const look = workLook(task.state);
  return (
    <li ref={card} class={`card edged work-card task${look.card}`} data-task={task.pKey} data-task-id={id} data-state={task.state}>
      <div class="card-head">
        <h2 class="work-title">{id}</h2>
        <span class="chip">{task.type}</span>
        <span class={`chip state-chip${look.chip}`}>{t(`tasks.state.${task.state}`)}</span>
      </div>
      {task.description && <p class="work-description">{task.description}</p>}
      <dl class="facts">
        <div>
          <dt>{t('tasks.created')}</dt>
          <dd>
            <time dateTime={task.createDt}>{formatTime(task.createDt)}</time> ({formatAge(task.createDt, now.value)})
          </dd>
        </div>
        {task.startedAt && (
          <div>
            <dt>{t('tasks.started')}</dt>
            <dd>
              <time dateTime={task.startedAt}>{formatTime(task.startedAt)}</time>
            </dd>
          </div>
        )}
        {task.finishedAt && (
          <div>
            <dt>{t('tasks.finished')}</dt>
            <dd>
              <time dateTime={task.finishedAt}>{formatTime(task.finishedAt)}</time>
            </dd>
          </div>
        )}
      </dl>
      {moves.length > 0 && !confirming.value && (
        <div class="actions">
          {moves.map((op) => (
            <button
              key={op}
              type="button"
              class={op === 'finish' ? undefined : 'primary'}
              disabled={busy.value}
              onClick={() => (op === 'finish' ? (confirming.value = true) : void move(op))}
            >
              {t(`tasks.${op}`)}
            </button>
          ))}
        </div>
      )}
      {moves.includes('finish') && confirming.value && (
        <Confirm
          label={t('tasks.finishLabel', { task: id })}
          question={t('tasks.finishQuestion', { task: id })}
          confirm={t('tasks.confirmFinish')}
          back={t('tasks.back')}
          busy={busy.value}
          onConfirm={() => void move('finish')}
          onBack={back}
        />
      )}
    </li>
  );
}
