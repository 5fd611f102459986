import { useMemo } from 'preact/hooks';
import { get } from '../../api.ts';
import { isShelved, openAlarms, openAlarmsError, refreshAlarms, setSound, SEVERITIES, soundOn, type Alarm } from '../../alarm-watch.ts';
import { now } from '../../clock.ts';
import { Failure, outcomeTo, Toasts, useToast, type Outcome } from '../../feedback.tsx';
import { t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';
import { ListView, useLiveList } from '../../lists/list-view.tsx';
import { LiveList } from '../../lists/live-list.ts';
import { pagesOf } from '../../lists/pages.ts';
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

/** Cleared alarms, newest first, as the API lists them; newly cleared ones come in where they belong. */
const journalList = () =>
  new LiveList<Alarm>({
    read: pagesOf('/v1/alarms', { state: 'cleared' }),
    readOne: async (id) => (await get<Alarm>(`/v1/alarms/${encodeURIComponent(id)}`)).body,
    keyOf: (a) => String(a.id),
    order: (a, b) => b.id - a.id,
    shows: (a) => a.state === 'cleared',
  });

/** The journal of cleared alarms; more pages on demand. */
function Journal() {
  const list = useMemo(journalList, []);
  useLiveList(list, ['alarm.cleared'], (e) => String(e.data.alarmId));
  return (
    <ListView
      list={list}
      listClass="alarm-list journal"
      label={t('alarms.journal')}
      empty={<p class="empty">{t('alarms.journalNone')}</p>}
      item={(a) => <AlarmCard key={a.id} alarm={a} onOutcome={() => {}} />}
    />
  );
}
