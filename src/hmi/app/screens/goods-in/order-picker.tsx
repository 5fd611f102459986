import { useSignal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { ApiFailure } from '../../api.ts';
import { Failure } from '../../feedback.tsx';
import { errorText, formatTime, plural, t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';
import { subscribe } from '../../live.ts';
import { wallboard } from '../../prefs.ts';
import { hrefOf } from '../../router.ts';
import { ORDER_EVENTS, openBusy, openError, openNext, openOrders, orderById, pKeyOfEvent, readOpenOrders, refreshOpenOrder, stateChip } from './orders.ts';

// Choosing the receiving order: scan (or type) its number from the delivery note, or
// pick it from the open orders, which follow the live events (a new order appears, a
// completed one leaves).

const open = (pKey: string) => {
  location.hash = hrefOf('goods-in', encodeURIComponent(pKey));
};

export function OrderPicker() {
  const field = useRef<HTMLInputElement>(null);
  const failure = useSignal<string | undefined>(undefined);
  const busy = useSignal(false);

  useLayoutEffect(() => field.current?.focus(), []);
  useEffect(() => {
    void readOpenOrders(true);
    return subscribe(
      ORDER_EVENTS,
      (event) => {
        const pKey = pKeyOfEvent(event);
        if (pKey) void refreshOpenOrder(pKey);
      },
      () => void readOpenOrders(true),
    );
  }, []);

  const find = async (e: Event) => {
    e.preventDefault();
    const id = field.current?.value.trim() ?? '';
    if (!id) return;
    busy.value = true;
    try {
      open((await orderById(id)).pKey);
    } catch (err) {
      failure.value = err instanceof ApiFailure && err.status === 404 ? t('goodsIn.noSuchOrder', { id }) : errorText(err);
      field.current?.select();
    } finally {
      busy.value = false;
    }
  };

  const list = openOrders.value;
  return (
    <>
      {!wallboard.value && (
        <form class="gi-order-form card" onSubmit={find}>
          <label for="gi-order">{t('goodsIn.orderField')}</label>
          <p class="muted gi-hint" id="gi-order-hint">
            {t('goodsIn.orderHint')}
          </p>
          <div class="field-row">
            <input
              id="gi-order"
              ref={field}
              aria-describedby="gi-order-hint"
              autocomplete="off"
              autocapitalize="off"
              spellcheck={false}
              enterKeyHint="go"
              maxLength={64}
              onInput={() => (failure.value = undefined)}
            />
            <button type="submit" class="primary" disabled={busy.value}>
              {t('goodsIn.open')}
            </button>
          </div>
          <div role="alert">
            {failure.value && (
              <p class="gi-feedback failed">
                <Icon name="warning" />
                <span>{failure.value}</span>
              </p>
            )}
          </div>
        </form>
      )}
      <section aria-labelledby="gi-open-title">
        <h2 id="gi-open-title" class="gi-subtitle">
          {t('goodsIn.openOrders')}
        </h2>
        {openError.value !== undefined && <Failure error={openError.value} retry={() => void readOpenOrders(true)} />}
        {list === undefined ? (
          openError.value === undefined && <p class="empty">{t('screen.loading')}</p>
        ) : list.length === 0 && !openNext.value ? (
          <p class="empty">{t('goodsIn.noOpenOrders')}</p>
        ) : (
          <ul class="plain-list gi-orders">
            {list.map((o) => (
              <li key={o.pKey}>
                <a class="gi-order-link card" href={hrefOf('goods-in', encodeURIComponent(o.pKey))} data-order={o.orderId}>
                  <strong>{o.orderId}</strong>
                  <span class={stateChip(o.state)}>{t(`goodsIn.state.${o.state}`)}</span>
                  <span class="muted">{plural('goodsIn.positionsCount', o.positions.length)}</span>
                  <time class="muted" dateTime={o.createDt}>
                    {formatTime(o.createDt)}
                  </time>
                </a>
              </li>
            ))}
          </ul>
        )}
        {openNext.value && !wallboard.value && (
          <button type="button" class="more" disabled={openBusy.value} onClick={() => void readOpenOrders(false)}>
            {t('action.more')}
          </button>
        )}
      </section>
    </>
  );
}
