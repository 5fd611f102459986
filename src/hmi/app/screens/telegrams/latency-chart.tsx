import { formatNumber, formatMinute } from './format.ts';
import { t } from '../../i18n.ts';
import type { MinuteFigures } from './latency.ts';

// The p50 and p99 of REQ_ → RES_ per minute over the last ten minutes, as a small SVG:
// a bar per minute up to its p99, the p50 as a solid bar inside it, the late threshold
// as a dashed line. Scaled to the highest p99 or the threshold, whichever is higher, so
// the threshold is always in view. The figures of the last minute are also written out
// (and the whole chart described) for those who do not see it.

const W = 320;
const H = 120;
const LEFT = 40;
const BOTTOM = 18;
const TOP = 8;

export function LatencyChart({ figures, threshold }: { figures: MinuteFigures[]; threshold: number }) {
  const top = Math.max(threshold, ...figures.map((f) => f.p99 ?? 0)) * 1.15;
  const y = (ms: number) => TOP + (H - BOTTOM - TOP) * (1 - ms / top);
  const slot = (W - LEFT) / figures.length;
  const latest = [...figures].reverse().find((f) => f.count > 0);
  const description = figures
    .filter((f) => f.count > 0)
    .map((f) => t('telegrams.chart.minute', { time: formatMinute(f.minute), p50: formatNumber(f.p50!), p99: formatNumber(f.p99!), n: f.count }))
    .join('; ');
  return (
    <figure class="card tg-chart">
      <figcaption>
        <strong>{t('telegrams.chart.title')}</strong>{' '}
        <span class="tg-chart-now">
          {latest
            ? t('telegrams.chart.latest', { p50: formatNumber(latest.p50!), p99: formatNumber(latest.p99!), n: latest.count })
            : t('telegrams.chart.none')}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={description || t('telegrams.chart.none')}>
        <line class="tg-axis" x1={LEFT} y1={H - BOTTOM} x2={W} y2={H - BOTTOM} />
        <text class="tg-tick" x={LEFT - 4} y={TOP + 8} text-anchor="end">
          {formatNumber(top)} ms
        </text>
        <text class="tg-tick" x={LEFT - 4} y={H - BOTTOM} text-anchor="end">
          0 ms
        </text>
        {figures.map((f, i) => {
          const x = LEFT + i * slot + slot * 0.15;
          const w = slot * 0.7;
          return (
            <g key={f.minute}>
              {f.p99 !== undefined && <rect class={`tg-p99${f.p99 > threshold ? ' late' : ''}`} x={x} y={y(f.p99)} width={w} height={H - BOTTOM - y(f.p99)} />}
              {f.p50 !== undefined && <rect class="tg-p50" x={x + w * 0.25} y={y(f.p50)} width={w * 0.5} height={H - BOTTOM - y(f.p50)} />}
              {(i === 0 || i === figures.length - 1) && (
                <text class="tg-tick" x={x + w / 2} y={H - 4} text-anchor="middle">
                  {formatMinute(f.minute)}
                </text>
              )}
            </g>
          );
        })}
        <line class="tg-threshold" x1={LEFT} y1={y(threshold)} x2={W} y2={y(threshold)} />
      </svg>
      <p class="tg-legend">
        <span class="tg-key tg-key-p50" aria-hidden="true" /> p50 <span class="tg-key tg-key-p99" aria-hidden="true" /> p99{' '}
        <span class="tg-key tg-key-late" aria-hidden="true" /> {t('telegrams.chart.threshold', { ms: formatNumber(threshold) })}
      </p>
    </figure>
  );
}
