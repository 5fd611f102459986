import { formatTime, hasText, t } from '../../i18n.ts';
import type { Channel } from './channel.ts';

// A channel's state and counters (GET /v1/plc-channels/{name}): the state as a chip
// (ONLINE green, STALE and LINKED amber, CLOSED and WAITING red-edged, DISABLED grey),
// since when, where it listens or dials and who is connected; the counters people look
// at first, and all of them (rejects by reason, the adapter's outcomes) behind a toggle.

/** How a state's chip shows (styles/tones.css). */
const STATE_TONES: Readonly<Record<string, string>> = {
  ONLINE: ' fill-ok',
  LINKED: ' fill-minor',
  STALE: ' fill-minor',
  WAITING: ' frame-danger',
  CLOSED: ' frame-danger',
  DISABLED: ' quiet',
};

export function StateChip({ state }: { state: string }) {
  return (
    <span class={`chip tg-state state-${state}${STATE_TONES[state] ?? ''}`}>{hasText(`telegrams.state.${state}`) ? t(`telegrams.state.${state}`) : state}</span>
  );
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

export function ChannelPanel({ channel }: { channel: Channel }) {
  const c = channel.counters;
  const main: [string, number][] = [
    ['rxOk', c.rxOk],
    ['tx', c.tx],
    ['rejected', sum(c.rxRejected)],
    ['duplicates', c.duplicates],
    ['resyncs', c.resyncs],
    ['connections', c.connections],
  ];
  const all: [string, number][] = [
    ...Object.entries(c.outcomes).map(([k, v]): [string, number] => [`outcome.${k}`, v]),
    ...Object.entries(c.rxRejected).map(([k, v]): [string, number] => [`rejected.${k}`, v]),
    ['overflows', c.overflows],
    ['bccErrors', c.bccErrors],
    ['partialFrames', c.partialFrames],
    ['errorRepliesSuppressed', c.errorRepliesSuppressed],
    ['repliesDropped', c.repliesDropped],
    ['warnings', c.warnings],
    ['superseded', c.superseded],
    ['refusedPeers', c.refusedPeers],
    ['gaveWay', c.gaveWay],
    ...Object.entries(c.stateChanges).map(([k, v]): [string, number] => [`entered.${k}`, v]),
  ];
  return (
    <section class="card tg-channel" aria-labelledby="tg-channel-title" data-state={channel.state}>
      <div class="card-head">
        <h2 id="tg-channel-title">{t('telegrams.channel', { name: channel.name })}</h2>
        <StateChip state={channel.state} />
        <span class="muted">
          {t('telegrams.since')} <time dateTime={channel.since}>{formatTime(channel.since)}</time>
        </span>
      </div>
      <dl class="facts">
        <div>
          <dt>{t('telegrams.endpoint')}</dt>
          <dd>
            {channel.transport} {channel.endpoint}
          </dd>
        </div>
        <div>
          <dt>{t('telegrams.peer')}</dt>
          <dd>{channel.peer ?? '–'}</dd>
        </div>
        <div>
          <dt>{t('telegrams.openConnections')}</dt>
          <dd>{channel.connections}</dd>
        </div>
        <div>
          <dt>{t('telegrams.lastRx')}</dt>
          <dd>{channel.lastRx ? formatTime(channel.lastRx) : '–'}</dd>
        </div>
      </dl>
      <dl class="tg-counters">
        {main.map(([key, value]) => (
          <div key={key} data-counter={key}>
            <dt>{t(`telegrams.counter.${key}`)}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <details class="disclosure tg-all-counters">
        <summary>{t('telegrams.allCounters')}</summary>
        <dl class="tg-counters">
          {all.map(([key, value]) => (
            <div key={key}>
              <dt>{counterName(key)}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </details>
    </section>
  );
}

/** `outcome.no-route` → "Outcome: no route"; names without a text stay as the API has them. */
function counterName(key: string): string {
  const dot = key.indexOf('.');
  if (dot > 0 && !hasText(`telegrams.counter.${key}`)) {
    const group = key.slice(0, dot);
    const name = key.slice(dot + 1);
    const prefix = group === 'entered' ? 'telegrams.state' : 'telegrams.outcome';
    const what = hasText(`${prefix}.${name}`) ? t(`${prefix}.${name}`) : name;
    return `${t(`telegrams.counter.${group}`)}: ${what}`;
  }
  return hasText(`telegrams.counter.${key}`) ? t(`telegrams.counter.${key}`) : key;
}
