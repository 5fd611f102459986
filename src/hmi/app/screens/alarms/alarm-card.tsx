import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { post } from '../../api.ts';
import { alarmText } from '../../alarm-text.ts';
import { refreshAlarms, severityChip, type Alarm } from '../../alarm-watch.ts';
import { now } from '../../clock.ts';
import { FormActions, type Outcome } from '../../feedback.tsx';
import { errorText, formatAge, formatTime, hasText, t } from '../../i18n.ts';
import { wallboard } from '../../prefs.ts';
import { can } from '../../session.ts';

// One alarm: what, where, since when, who has seen it; and, for users with the grant
// alarms:write, acknowledge and shelve, each with a comment. The outcome is told by the
// screen (its toast), which stays when the alarm leaves the list meanwhile.

const kindText = (alarm: Alarm) => (hasText(`alarms.kind.${alarm.kind}`) ? t(`alarms.kind.${alarm.kind}`) : alarm.kind);

function SeverityChip({ alarm }: { alarm: Alarm }) {
  return <span class={severityChip(alarm.severity)}>{t(`alarms.severity.${alarm.severity}`)}</span>;
}

const SHELVE_MINUTES = [15, 60, 240, 480, 1440] as const;

type Mode = 'acknowledge' | 'shelve';

export function AlarmCard({ alarm, onOutcome }: { alarm: Alarm; onOutcome: Outcome }) {
  const mode = useSignal<Mode | undefined>(undefined);
  const actions = can('alarms:write') && !wallboard.value && alarm.state !== 'cleared';
  return (
    <li class={`alarm card edged edge-${alarm.severity}${alarm.state === 'active' ? '' : ' settled'}`} data-alarm-id={alarm.id} data-state={alarm.state}>
      <div class="card-head">
        <SeverityChip alarm={alarm} />
        <h2 class="alarm-title">{kindText(alarm)}</h2>
        <span class={`chip state-chip${alarm.state === 'active' ? ' frame-text' : ''}`}>{t(`alarms.state.${alarm.state}`)}</span>
      </div>
      <p class="alarm-message">{alarmText(alarm)}</p>
      <dl class="facts">
        <div>
          <dt>{t('alarms.source')}</dt>
          <dd>
            {hasText(`alarms.sourceKind.${alarm.source.kind}`) ? t(`alarms.sourceKind.${alarm.source.kind}`) : alarm.source.kind}{' '}
            <strong>{alarm.source.key}</strong>
          </dd>
        </div>
        <div>
          <dt>{t('alarms.since')}</dt>
          <dd>
            <time dateTime={alarm.firstSeen}>{formatTime(alarm.firstSeen)}</time> ({formatAge(alarm.firstSeen, now.value)})
          </dd>
        </div>
        {alarm.count > 1 && (
          <div>
            <dt>{t('alarms.count')}</dt>
            <dd>
              {alarm.count} · {t('alarms.lastSeen')} <time dateTime={alarm.lastSeen}>{formatTime(alarm.lastSeen)}</time>
            </dd>
          </div>
        )}
        {alarm.clearedAt && (
          <div>
            <dt>{t('alarms.clearedAt')}</dt>
            <dd>
              <time dateTime={alarm.clearedAt}>{formatTime(alarm.clearedAt)}</time>
            </dd>
          </div>
        )}
      </dl>
      {alarm.acknowledgedBy && (
        <p class="who">
          {t('alarms.acknowledgedBy', { name: alarm.acknowledgedBy, time: formatTime(alarm.acknowledgedAt) })}
          {alarm.ackComment && <q class="comment">{alarm.ackComment}</q>}
        </p>
      )}
      {alarm.shelvedUntil && alarm.shelvedBy && Date.parse(alarm.shelvedUntil) > now.value && (
        <p class="who">
          {t('alarms.shelvedBy', { name: alarm.shelvedBy, time: formatTime(alarm.shelvedUntil) })}
          {alarm.shelveComment && <q class="comment">{alarm.shelveComment}</q>}
        </p>
      )}
      {actions && !mode.value && (
        <div class="actions">
          {alarm.state === 'active' && (
            <button type="button" class="primary" onClick={() => (mode.value = 'acknowledge')}>
              {t('alarms.acknowledge')}
            </button>
          )}
          <button type="button" onClick={() => (mode.value = 'shelve')}>
            {t('alarms.shelve')}
          </button>
        </div>
      )}
      {actions && mode.value && <ActionForm alarm={alarm} mode={mode.value} onOutcome={onOutcome} onClose={() => (mode.value = undefined)} />}
    </li>
  );
}

function ActionForm({ alarm, mode, onOutcome, onClose }: { alarm: Alarm; mode: Mode; onOutcome: Outcome; onClose: () => void }) {
  const id = useId();
  const comment = useSignal('');
  const minutes = useSignal<number>(60);
  const busy = useSignal(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    busy.value = true;
    const text = comment.value.trim();
    try {
      if (mode === 'acknowledge') {
        await post(`/v1/alarms/${alarm.id}/acknowledge`, text ? { comment: text } : undefined);
      } else {
        await post(`/v1/alarms/${alarm.id}/shelve`, { minutes: minutes.value, ...(text ? { comment: text } : {}) });
      }
      onOutcome('done', t(mode === 'acknowledge' ? 'alarms.done.acknowledged' : 'alarms.done.shelved'));
      onClose();
      await refreshAlarms();
    } catch (err) {
      onOutcome('failed', errorText(err));
      busy.value = false;
    }
  };

  const label = t(mode === 'acknowledge' ? 'alarms.acknowledgeAlarm' : 'alarms.shelveAlarm', { what: kindText(alarm) });
  return (
    <form class="card-form alarm-form" onSubmit={submit} aria-label={label}>
      {mode === 'shelve' && (
        <>
          <label for={`${id}-minutes`}>{t('alarms.shelveFor')}</label>
          <select id={`${id}-minutes`} value={String(minutes.value)} onChange={(e) => (minutes.value = Number(e.currentTarget.value))}>
            {SHELVE_MINUTES.map((m) => (
              <option key={m} value={String(m)}>
                {t(`alarms.minutes.${m}`)}
              </option>
            ))}
          </select>
        </>
      )}
      <label for={`${id}-comment`}>{t('alarms.commentOptional')}</label>
      <textarea id={`${id}-comment`} maxLength={500} rows={2} value={comment.value} onInput={(e) => (comment.value = e.currentTarget.value)} />
      <FormActions
        send={t(mode === 'acknowledge' ? 'alarms.confirmAcknowledge' : 'alarms.confirmShelve')}
        back={t('action.cancel')}
        busy={busy.value}
        onBack={onClose}
      />
    </form>
  );
}
