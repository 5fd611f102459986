import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { serverNow, type Channel } from './channel.ts';
import { LatencyChart } from './latency-chart.tsx';
import { LatencyMinutes, lateThreshold, type MinuteFigures } from './latency.ts';
import { usePoll } from './poll.ts';
import { TelegramTail } from './tail.ts';

// The chart's own reading of the log: the channel's RES_ telegrams of the last ten
// minutes, then the new ones every five seconds (a per-minute figure needs no more).
// It reads independently of the tail's filter, so the chart always shows the channel.

const WINDOW_MS = 10 * 60_000;
const EVERY_MS = 5000;
const PAGE = 1000;
const PAGES = 10;
const SKIP_BACK_MS = 60_000;

export function LatencyView({ channel, paused }: { channel: Channel; paused: boolean }) {
  const minutes = useRef(new LatencyMinutes());
  const tail = useRef<TelegramTail | undefined>(undefined);
  const figures = useSignal<MinuteFigures[]>(minutes.current.figures(serverNow()));
  const pausedNow = useRef(paused);
  pausedNow.current = paused;
  const show = () => {
    if (!pausedNow.current) figures.value = minutes.current.figures(serverNow());
  };
  usePoll(
    async () => {
      tail.current ??= new TelegramTail(channel.name, { type: 'RES_' }, serverNow() - WINDOW_MS);
      const read = await tail.current.read(PAGE, PAGES, () => serverNow() - SKIP_BACK_MS);
      for (const row of read.rows) if (row.latencyMs !== null) minutes.current.add(row.at, row.latencyMs);
      show();
    },
    EVERY_MS,
    [channel.name],
  );
  useEffect(show, [paused]);
  return <LatencyChart figures={figures.value} threshold={lateThreshold(channel)} />;
}
