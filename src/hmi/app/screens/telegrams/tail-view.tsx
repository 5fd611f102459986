import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { Failure } from '../../feedback.tsx';
import { plural, t } from '../../i18n.ts';
import { wallboard } from '../../prefs.ts';
import { lastTraffic, serverNow, type Channel } from './channel.ts';
import { FilterForm } from './filter-form.tsx';
import { lateThreshold, setLateMs } from './latency.ts';
import { usePoll } from './poll.ts';
import { TelegramTail, type TailFilter, type TailRead, type Telegram } from './tail.ts';
import { TelegramRow } from './telegram-row.tsx';

// The live tail of a channel's telegram log, newest on top. On open (and on a new
// filter) it reads the ten minutes before the channel's last traffic and keeps the
// newest HELD; then it asks for what came since about once a second. Paused, the list
// stands still: what arrives is kept aside (the newest HELD of it) and counted, and
// shown on resume.

const HELD = 500;
const WINDOW_MS = 10 * 60_000;
const EVERY_MS = 1000;
/** A first read may page far back; a regular one follows at most 1,000 telegrams a second. */
const FIRST = { limit: 1000, pages: 10 };
const NEXT = { limit: 200, pages: 5 };
const SKIP_BACK_MS = 2000;

interface Props {
  channel: Channel;
  paused: boolean;
  onPause: (paused: boolean) => void;
}

export function TailView({ channel, paused, onPause }: Props) {
  const filter = useSignal<TailFilter>({});
  const rows = useSignal<Telegram[]>([]);
  const pending = useSignal<Telegram[]>([]);
  const arrived = useSignal(0);
  const skipped = useSignal(false);
  const loaded = useSignal(false);
  const error = useSignal<unknown>(undefined);
  // What is typed in the late threshold until it is committed (Enter, leaving the field):
  // the list re-renders with every poll, and would otherwise put the old value back.
  const draft = useSignal<string | undefined>(undefined);
  const current = useRef<{ key: string; tail: TelegramTail; first: boolean } | undefined>(undefined);
  // Read when a read ends, not when it began: a pause pressed meanwhile holds its telegrams back.
  const pausedNow = useRef(paused);
  pausedNow.current = paused;
  const key = JSON.stringify(filter.value);

  const take = (read: TailRead, first: boolean) => {
    skipped.value = read.skipped;
    const newest = read.rows.reverse();
    // The first read of a filter is shown even when paused: the user asked for it.
    if (pausedNow.current && !first) {
      pending.value = [...newest, ...pending.value].slice(0, HELD);
      arrived.value += newest.length;
    } else if (newest.length) rows.value = [...newest, ...rows.value].slice(0, HELD);
    loaded.value = true;
  };

  usePoll(
    async () => {
      if (current.current?.key !== key) {
        // The ten minutes before the last telegram the channel saw: a silent channel still shows its last ones.
        const end = Math.min(serverNow(), lastTraffic(channel) ?? Infinity);
        current.current = { key, tail: new TelegramTail(channel.name, filter.value, end - WINDOW_MS), first: true };
        rows.value = [];
        pending.value = [];
        arrived.value = 0;
        loaded.value = false;
      }
      const mine = current.current;
      try {
        const budget = mine.first ? FIRST : NEXT;
        const read = await mine.tail.read(budget.limit, budget.pages, () => serverNow() - SKIP_BACK_MS);
        if (current.current !== mine) return;
        take(read, mine.first);
        mine.first = false;
        error.value = undefined;
      } catch (err) {
        if (current.current === mine) error.value = err;
      }
    },
    EVERY_MS,
    [channel.name, key],
  );

  const resume = () => {
    rows.value = [...pending.value, ...rows.value].slice(0, HELD);
    pending.value = [];
    arrived.value = 0;
    onPause(false);
  };

  const board = wallboard.value;
  const threshold = lateThreshold(channel);
  const filtered = key !== '{}';
  return (
    <section class="tg-tail" aria-labelledby="tg-tail-title">
      <h2 id="tg-tail-title">{t('telegrams.tail')}</h2>
      {!board && (
        <div class="tg-controls">
          <FilterForm filter={filter.value} onFilter={(f) => (filter.value = f)} />
          <div class="tg-field tg-threshold-field">
            <label for="tg-late">{t('telegrams.lateThreshold')}</label>
            <input
              id="tg-late"
              type="number"
              min="0.001"
              step="any"
              inputMode="decimal"
              value={draft.value ?? threshold}
              onInput={(e) => (draft.value = e.currentTarget.value)}
              onChange={(e) => {
                setLateMs(Number(e.currentTarget.value));
                draft.value = undefined;
              }}
            />
          </div>
          <button type="button" class={`tg-pause${paused ? ' primary' : ''}`} aria-pressed={paused} onClick={() => (paused ? resume() : onPause(true))}>
            {t(paused ? 'telegrams.resume' : 'telegrams.pause')}
          </button>
        </div>
      )}
      <p class="tg-status" role="status">
        {paused && (
          <span class="tg-paused" data-arrived={arrived.value}>
            {plural('telegrams.paused', arrived.value)}
          </span>
        )}
      </p>
      {skipped.value && <p class="notice">{t('telegrams.skipped')}</p>}
      {error.value !== undefined && <Failure error={error.value} />}
      {!loaded.value ? (
        error.value === undefined && <p class="empty">{t('screen.loading')}</p>
      ) : rows.value.length === 0 ? (
        <p class="empty">{t(filtered ? 'telegrams.noneFiltered' : 'telegrams.none')}</p>
      ) : (
        <>
          <ol class="plain-list framed tg-list" aria-labelledby="tg-tail-title">
            {rows.value.map((row) => (
              <TelegramRow key={row.id} telegram={row} threshold={threshold} />
            ))}
          </ol>
          {rows.value.length >= HELD && <p class="muted">{t('telegrams.held', { n: HELD })}</p>}
        </>
      )}
    </section>
  );
}
