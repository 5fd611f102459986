import { useSignal } from '@preact/signals';
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { ApiFailure } from '../../api.ts';
import { errorText, formatTime, plural, t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';
import { ListView, useLiveList } from '../../lists/list-view.tsx';
import { wallboard } from '../../prefs.ts';
import { hrefOf } from '../../router.ts';
import { ORDER_EVENTS, openOrderList, orderById, stateChip } from './orders.ts';

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
  const openOrders = useMemo(openOrderList, []);
  useLiveList(openOrders, ORDER_EVENTS);

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
        <ListView
          list={openOrders}
          listClass="gi-orders"
          empty={<p class="empty">{t('goodsIn.noOpenOrders')}</p>}
          item={(o) => (
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
          )}
        />
      </section>
    </>
  );
}
