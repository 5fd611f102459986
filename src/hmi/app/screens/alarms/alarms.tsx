import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { page } from '../../api.ts';
import { isShelved, openAlarms, openAlarmsError, refreshAlarms, setSound, SEVERITIES, soundOn, type Alarm } from '../../alarm-watch.ts';
import { now } from '../../clock.ts';
import { Failure, outcomeTo, Toasts, useToast, type Outcome } from '../../feedback.tsx';
import { t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';
import { subscribe } from '../../live.ts';
import { wallboard } from '../../prefs.ts';
import { hrefOf } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { AlarmCard } from './alarm-card.tsx';

// The alarms screen (docs/hmi.md): the open alarms, unacknowledged first, then by
// severity and age; shelved ones apart; the journal of cleared alarms, paged. Both
// follow the live events without a reload. `#/alarms/journal` is the journal.

const rank = (a: Alarm) => (a.state === 'active' ? 0 : 1) * 10 + SEVERITIES.indexOf(a.severity);
const order = (a: Alarm, b: Alarm) => rank(a) - rank(b) || a.firstSeen.localeCompare(b.firstSeen) || a.id - b.id;

export default function AlarmsScreen({ rest }: ScreenProps) {
  const journal = rest === 'journal' && !wallboard.value;
  const toast = useToast();
  const onOutcome = outcomeTo(toast);
  return (
    <section class="screen alarms" aria-labelledby="alarms-title">
      <div class="screen-head">
        <h1 id="alarms-title">{t('alarms.title')}</h1>
        {!wallboard.value && (
          <>
            <nav class="tabs" aria-label={t('alarms.views')}>
              <a href={hrefOf('alarms')} aria-current={journal ? undefined : 'page'}>
                {t('alarms.open')}
              </a>
              <a href={hrefOf('alarms', 'journal')} aria-current={journal ? 'page' : undefined}>
                {t('alarms.journal')}
              </a>
            </nav>
            <button type="button" class="tool sound" aria-pressed={soundOn.value} onClick={() => setSound(!soundOn.value)}>
              <Icon name={soundOn.value ? 'soundOn' : 'soundOff'} />
              <span class="tool-label">{t(soundOn.value ? 'alarms.soundOn' : 'alarms.soundOff')}</span>
            </button>
          </>
        )}
      </div>
      {journal ? <Journal /> : <OpenAlarms onOutcome={onOutcome} />}
      <Toasts toast={toast} />
    </section>
  );
}

function OpenAlarms({ onOutcome }: { onOutcome: Outcome }) {
  const alarms = openAlarms.value;
  if (alarms === undefined) {
    return openAlarmsError.value ? <Failure error={openAlarmsError.value} retry={() => void refreshAlarms()} /> : <p class="empty">{t('screen.loading')}</p>;
  }
  const at = now.value;
  const shown = alarms.filter((a) => !isShelved(a, at)).sort(order);
  const shelved = alarms.filter((a) => isShelved(a, at)).sort(order);
  return (
    <>
      {openAlarmsError.value !== undefined && <Failure error={openAlarmsError.value} retry={() => void refreshAlarms()} />}
      {shown.length === 0 ? (
        <p class="empty all-clear">
          <Icon name="check" />
          {t('alarms.none')}
        </p>
      ) : (
        <ul class="plain-list alarm-list" aria-labelledby="alarms-title">
          {shown.map((a) => (
            <AlarmCard key={a.id} alarm={a} onOutcome={onOutcome} />
          ))}
        </ul>
      )}
      {shelved.length > 0 && !wallboard.value && (
        <details class="disclosure shelved">
          <summary>{t('alarms.shelvedGroup', { n: shelved.length })}</summary>
          <ul class="plain-list alarm-list">
            {shelved.map((a) => (
              <AlarmCard key={a.id} alarm={a} onOutcome={onOutcome} />
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

const JOURNAL_PAGE = 50;

/** Cleared alarms, newest first; more pages on demand; newly cleared ones come in at the top. */
function Journal() {
  const items = useSignal<Alarm[] | undefined>(undefined);
  const next = useSignal<string | undefined>(undefined);
  const busy = useSignal(false);
  const error = useSignal<unknown>(undefined);

  const merge = (fresh: Alarm[]) => {
    const byId = new Map((items.value ?? []).map((a) => [a.id, a]));
    for (const a of fresh) byId.set(a.id, a);
    items.value = [...byId.values()].sort((a, b) => b.id - a.id);
  };

  /** The first page: at the start, and after a clearing (merged with pages read further on). */
  const loadFirst = async () => {
    try {
      const first = await page<Alarm>('/v1/alarms', { state: 'cleared' }, JOURNAL_PAGE);
      if (items.value === undefined) next.value = first.next;
      merge(first.items);
      error.value = undefined;
    } catch (err) {
      error.value = err;
    }
  };

  const loadMore = async () => {
    if (!next.value) return;
    busy.value = true;
    try {
      const more = await page<Alarm>('/v1/alarms', { state: 'cleared' }, JOURNAL_PAGE, next.value);
      next.value = more.next;
      merge(more.items);
      error.value = undefined;
    } catch (err) {
      error.value = err;
    } finally {
      busy.value = false;
    }
  };

  useEffect(() => {
    void loadFirst();
    return subscribe(
      ['alarm.cleared'],
      () => void loadFirst(),
      () => void loadFirst(),
    );
  }, []);

  if (items.value === undefined) {
    return error.value ? <Failure error={error.value} retry={() => void loadFirst()} /> : <p class="empty">{t('screen.loading')}</p>;
  }
  return (
    <>
      {error.value !== undefined && <Failure error={error.value} retry={() => void loadFirst()} />}
      {items.value.length === 0 ? (
        <p class="empty">{t('alarms.journalNone')}</p>
      ) : (
        <ul class="plain-list alarm-list journal" aria-label={t('alarms.journal')}>
          {items.value.map((a) => (
            <AlarmCard key={a.id} alarm={a} onOutcome={() => {}} />
          ))}
        </ul>
      )}
      {next.value && (
        <button type="button" class="more" disabled={busy.value} onClick={() => void loadMore()}>
          {t('action.more')}
        </button>
      )}
    </>
  );
}
