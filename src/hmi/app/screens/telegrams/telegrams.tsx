import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { Failure } from '../../feedback.tsx';
import { t } from '../../i18n.ts';
import { subscribe } from '../../live.ts';
import { wallboard } from '../../prefs.ts';
import { hrefOf, replaceRoute } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { can } from '../../session.ts';
import { ChannelPanel, StateChip } from './channel-panel.tsx';
import { channels, loadChannels, onStateChanged, refreshChannel } from './channel.ts';
import { LatencyView } from './latency-view.tsx';
import { usePoll } from './poll.ts';
import { TailView } from './tail-view.tsx';

// The telegram monitor (docs/hmi.md): per PLC channel its state and counters, a live
// tail of its telegram log with filter, pause and decoded fields, and the REQ_ → RES_
// latency of the last ten minutes. `#/telegrams/<channel>` shows a channel; without a
// name the first one.

export default function TelegramsScreen({ rest }: ScreenProps) {
  const listError = useSignal<unknown>(undefined);
  const reload = async () => {
    try {
      await loadChannels();
      listError.value = undefined;
    } catch (err) {
      listError.value = err;
    }
  };
  // States change by event; without the grant events:read the list is read every 10 s.
  useEffect(() => subscribe(['plcChannel.stateChanged'], onStateChanged, () => void reload()), []);
  usePoll(reload, can('events:read') ? 60_000 : 10_000, []);

  const list = channels.value;
  const name = decodeURIComponent(rest);
  useEffect(() => {
    if (!name && list?.[0]) replaceRoute('telegrams', encodeURIComponent(list[0].name));
  }, [name, list?.[0]?.name]);
  const channel = list?.find((c) => c.name === name);

  return (
    <section class="screen telegrams" aria-labelledby="telegrams-title">
      <div class="screen-head">
        <h1 id="telegrams-title">{t('telegrams.title')}</h1>
        {list && list.length > 0 && (
          <nav class="tabs tg-tabs" aria-label={t('telegrams.channels')}>
            {list.map((c) => (
              <a key={c.name} href={hrefOf('telegrams', encodeURIComponent(c.name))} aria-current={c.name === name ? 'page' : undefined} data-channel={c.name}>
                <span>{c.name}</span>
                <StateChip state={c.state} />
              </a>
            ))}
          </nav>
        )}
      </div>
      {listError.value !== undefined && <Failure error={listError.value} retry={() => void reload()} />}
      {list === undefined ? (
        listError.value === undefined && <p class="empty">{t('screen.loading')}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t('telegrams.noChannels')}</p>
      ) : channel ? (
        <ChannelMonitor key={channel.name} name={channel.name} />
      ) : (
        name && <p class="empty">{t('telegrams.unknownChannel', { name })}</p>
      )}
    </section>
  );
}

function ChannelMonitor({ name }: { name: string }) {
  const error = useSignal<unknown>(undefined);
  // Paused: neither the tail nor the chart moves; the channel's state and counters do.
  const paused = useSignal(false);
  // Counters change with every telegram and no event carries them: read each second.
  usePoll(
    async () => {
      try {
        await refreshChannel(name);
        error.value = undefined;
      } catch (err) {
        error.value = err;
      }
    },
    1000,
    [name],
  );
  const channel = channels.value?.find((c) => c.name === name);
  if (!channel) return null;
  return (
    <>
      {error.value !== undefined && !wallboard.value && <Failure error={error.value} />}
      <div class="tg-top">
        <ChannelPanel channel={channel} />
        <LatencyView channel={channel} paused={paused.value} />
      </div>
      <TailView channel={channel} paused={paused.value} onPause={(p) => (paused.value = p)} />
    </>
  );
}
