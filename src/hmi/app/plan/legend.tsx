import { t } from '../i18n.ts';
import { wallboard } from '../prefs.ts';
import { Glyph, hasPattern, LINK_KINDS, STATES, type DefIds } from './plan-defs.tsx';

// What the colours, patterns, glyphs and lines of the plan mean. Collapsible where
// room is short; always open on a wallboard, which has nothing to press.

export function Legend({ ids }: { ids: DefIds }) {
  const items = (
    <ul class="plan-legend-items">
      {STATES.map((s) => (
        <li key={s} class={`s-${s}`}>
          <svg class="plan-swatch" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
            <rect class="plan-box" x="1" y="1" width="22" height="22" rx="3" />
            {hasPattern(s) && <rect class="plan-hatch" x="1" y="1" width="22" height="22" rx="3" fill={`url(#${ids.pattern(s)})`} />}
            <Glyph state={s} x={6} y={6} />
          </svg>
          {t(`plan.state.${s}`)}
        </li>
      ))}
      {LINK_KINDS.map((k) => (
        <li key={k}>
          <svg class="plan-swatch" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
            <path class={`plan-link plan-link-${k}`} d="M2 12H18" marker-end={`url(#${ids.arrow(k)})`} />
          </svg>
          {t(`plan.link.${k}`)}
        </li>
      ))}
      <li>
        <svg class="plan-swatch" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
          <rect class="plan-box" x="1" y="1" width="22" height="22" rx="3" />
          <circle class="plan-unit-dot" cx="16" cy="16" r="4" />
        </svg>
        {t('plan.legendUnits')}
      </li>
    </ul>
  );
  if (wallboard.value) {
    return (
      <div class="plan-legend" role="region" aria-label={t('plan.legend')}>
        {items}
      </div>
    );
  }
  return (
    <details class="plan-legend">
      <summary>{t('plan.legend')}</summary>
      {items}
    </details>
  );
}
