import { t } from '../../i18n.ts';
import { wallboard } from '../../prefs.ts';
import { booked, clearBooked } from './session.ts';
import { formatClock } from './time.ts';

// What this desk captured in this session, newest first: the running tally an operator
// checks against the delivery note.

export function BookedList() {
  const list = booked.value;
  return (
    <section class="gi-booked" aria-labelledby="gi-booked-title">
      <h2 id="gi-booked-title" class="gi-subtitle">
        {t('goodsIn.session')} ({list.length})
      </h2>
      {list.length === 0 ? (
        <p class="empty">{t('goodsIn.sessionNone')}</p>
      ) : (
        <>
          <ol class="plain-list">
            {list.map((b, i) => (
              <li key={`${b.at}-${i}`}>
                <time dateTime={b.at}>{formatClock(b.at)}</time>
                <strong>
                  {b.quantity} {b.unit}
                </strong>
                <span class="gi-sku">{b.sku}</span>
                <span class="muted">
                  → {b.transportUnit} / {b.loadUnit} · {b.orderId}
                </span>
              </li>
            ))}
          </ol>
          {!wallboard.value && (
            <button type="button" onClick={clearBooked}>
              {t('goodsIn.sessionClear')}
            </button>
          )}
        </>
      )}
    </section>
  );
}
