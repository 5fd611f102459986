import { useRef } from 'preact/hooks';
import { t } from '../../i18n.ts';
import type { TailFilter } from './tail.ts';

// The tail's filter: type and direction apply when chosen, the barcode with Enter or
// Apply. They are the log's own filters: the appliance searches its whole log for them,
// not only the telegrams the page holds. The barcode is the unit's as stored.

export const TYPES = ['REQ_', 'RES_', 'UPD_', 'UPDX', 'ACK_', 'LOCU', 'SYSU', 'ERR_', 'SYNQ', 'SYNC'] as const;

export function FilterForm({ filter, onFilter }: { filter: TailFilter; onFilter: (f: TailFilter) => void }) {
  const barcode = useRef<HTMLInputElement>(null);
  const set = (change: TailFilter) => onFilter(clean({ ...filter, ...change }));
  const active = !!(filter.type || filter.direction || filter.barcode);
  return (
    <form
      class="tg-filter"
      aria-label={t('telegrams.filter')}
      onSubmit={(e) => {
        e.preventDefault();
        set({ barcode: barcode.current?.value.trim() });
      }}
    >
      <div class="tg-field">
        <label for="tg-type">{t('telegrams.filter.type')}</label>
        <select id="tg-type" value={filter.type ?? ''} onChange={(e) => set({ type: e.currentTarget.value })}>
          <option value="">{t('telegrams.filter.any')}</option>
          {TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div class="tg-field">
        <label for="tg-direction">{t('telegrams.filter.direction')}</label>
        <select id="tg-direction" value={filter.direction ?? ''} onChange={(e) => set({ direction: e.currentTarget.value })}>
          <option value="">{t('telegrams.filter.any')}</option>
          <option value="in">{t('telegrams.dir.in')}</option>
          <option value="out">{t('telegrams.dir.out')}</option>
        </select>
      </div>
      <div class="tg-field tg-field-wide">
        <label for="tg-barcode">{t('telegrams.filter.barcode')}</label>
        <input id="tg-barcode" ref={barcode} defaultValue={filter.barcode ?? ''} maxLength={64} autocomplete="off" spellcheck={false} />
      </div>
      <div class="tg-filter-actions">
        <button type="submit">{t('telegrams.filter.apply')}</button>
        {active && (
          <button
            type="button"
            onClick={() => {
              if (barcode.current) barcode.current.value = '';
              onFilter({});
            }}
          >
            {t('telegrams.filter.clear')}
          </button>
        )}
      </div>
    </form>
  );
}

/** Empty choices are no filter. */
function clean(filter: TailFilter): TailFilter {
  const out: TailFilter = {};
  if (filter.type) out.type = filter.type;
  if (filter.direction) out.direction = filter.direction;
  if (filter.barcode) out.barcode = filter.barcode;
  return out;
}
