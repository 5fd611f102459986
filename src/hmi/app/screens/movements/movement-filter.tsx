import { useSignal } from '@preact/signals';
import { t } from '../../i18n.ts';
import { MOVEMENT_STATES, MOVEMENT_TYPES, NO_FILTER, type MovementFilter, type StateChoice } from './movement.ts';

// The filter of the movements list: state and type apply when chosen; unit and source
// when sent (Enter, also a scanner's, or the button). The source is a location, or a
// group with the groups below it. The appliance filters by a unit's barcode or by a
// source, not by both: with a barcode typed, the source waits.

const STATE_CHOICES: readonly StateChoice[] = ['open', ...MOVEMENT_STATES, 'all'];

export function MovementFilterForm({ filter, onApply }: { filter: MovementFilter; onApply: (f: MovementFilter) => void }) {
  const draft = useSignal<MovementFilter>(filter);
  const set = (change: Partial<MovementFilter>) => (draft.value = { ...draft.value, ...change });
  const apply = (change: Partial<MovementFilter> = {}) => {
    set(change);
    const d = draft.value;
    onApply({ ...d, barcode: d.barcode.trim(), source: d.source.trim() });
  };
  const d = draft.value;
  const sourceWaits = d.barcode.trim() !== '';
  return (
    <form
      class="framed work-filter"
      role="search"
      aria-label={t('movements.filter')}
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      <div class="work-field">
        <label for="mv-state">{t('movements.state')}</label>
        <select id="mv-state" value={d.state} onChange={(e) => apply({ state: e.currentTarget.value as StateChoice })}>
          {STATE_CHOICES.map((s) => (
            <option key={s} value={s}>
              {t(s === 'open' || s === 'all' ? `movements.filter.${s}` : `movements.state.${s}`)}
            </option>
          ))}
        </select>
      </div>
      <div class="work-field">
        <label for="mv-type">{t('movements.typeLabel')}</label>
        <select id="mv-type" value={d.type} onChange={(e) => apply({ type: e.currentTarget.value })}>
          <option value="">{t('movements.filter.anyType')}</option>
          {MOVEMENT_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`movements.type.${type}`)}
            </option>
          ))}
        </select>
      </div>
      <div class="work-field">
        <label for="mv-barcode">{t('movements.filter.unit')}</label>
        <input id="mv-barcode" value={d.barcode} autoComplete="off" spellcheck={false} onInput={(e) => set({ barcode: e.currentTarget.value })} />
      </div>
      <div class="work-field">
        <label for="mv-source">{t('movements.filter.source')}</label>
        <input
          id="mv-source"
          value={d.source}
          autoComplete="off"
          spellcheck={false}
          disabled={sourceWaits}
          aria-describedby={sourceWaits ? 'mv-source-hint' : undefined}
          onInput={(e) => set({ source: e.currentTarget.value })}
        />
      </div>
      <div class="work-field work-buttons">
        <button type="submit" class="primary">
          {t('movements.filter.apply')}
        </button>
        <button
          type="button"
          onClick={() => {
            draft.value = NO_FILTER;
            onApply(NO_FILTER);
          }}
        >
          {t('movements.filter.reset')}
        </button>
      </div>
      {sourceWaits && (
        <p id="mv-source-hint" class="muted work-hint work-note">
          {t('movements.filter.sourceWaits')}
        </p>
      )}
    </form>
  );
}
