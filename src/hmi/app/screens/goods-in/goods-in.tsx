import { useSignal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { Failure } from '../../feedback.tsx';
import { t } from '../../i18n.ts';
import { subscribe } from '../../live.ts';
import { wallboard } from '../../prefs.ts';
import { hrefOf } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { can } from '../../session.ts';
import { BookedList } from './booked-list.tsx';
import { CaptureForm } from './capture.tsx';
import { OrderPicker } from './order-picker.tsx';
import { isOpen, ORDER_EVENTS, orderByPKey, pKeyOfEvent, stateChip, type ReceivingOrder } from './orders.ts';
import { Positions } from './positions.tsx';
import { unitOf } from './quantity.ts';

// Goods-in (docs/hmi.md): capture received goods against a receiving order with a
// barcode scanner. `#/goods-in` chooses the order; `#/goods-in/<pKey>` captures on it.
// The order follows the live events, so bookings from another desk show here too.

export default function GoodsInScreen({ rest }: ScreenProps) {
  const pKey = decodeURIComponent(rest);
  return (
    <section class="screen goods-in" aria-labelledby="gi-title">
      <div class="screen-head">
        <h1 id="gi-title">{t('goodsIn.title')}</h1>
      </div>
      {pKey ? <OrderCapture key={pKey} pKey={pKey} /> : <OrderPicker />}
    </section>
  );
}

function OrderCapture({ pKey }: { pKey: string }) {
  const order = useSignal<ReceivingOrder | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  const current = useSignal<string | undefined>(undefined);
  const unit = useSignal('PC');
  const back = useRef<HTMLAnchorElement>(null);

  const show = (o: ReceivingOrder) => {
    order.value = o;
    // The quantity's unit: that of the chosen position, at first the first one still open.
    if (!o.positions.some((p) => p.pKey === current.value)) {
      const first = o.positions.find((p) => p.state === 'OPEN' || p.state === 'PROCESSING') ?? o.positions[0];
      current.value = first?.pKey;
      if (first) unit.value = unitOf(first.quantityExpected);
    }
  };
  const load = async () => {
    try {
      show(await orderByPKey(pKey));
      error.value = undefined;
    } catch (err) {
      error.value = err;
    }
  };
  useEffect(() => {
    void load();
    return subscribe(
      ORDER_EVENTS,
      (event) => pKeyOfEvent(event) === pKey && void load(),
      () => void load(),
    );
  }, [pKey]);

  const o = order.value;
  const open = o ? isOpen(o) : false;
  // The order completed under the scanner: the focus goes to the way to the next order.
  useLayoutEffect(() => {
    if (o && !open && document.activeElement === document.body) back.current?.focus();
  }, [open]);

  const capture = open && can('receiving-orders:write') && !wallboard.value;
  return (
    <>
      {error.value !== undefined && <Failure error={error.value} retry={() => void load()} />}
      {!o ? (
        error.value === undefined && <p class="empty">{t('screen.loading')}</p>
      ) : (
        <>
          <div class="section-head gi-order-head">
            <h2 class="gi-order-title">{t('goodsIn.order', { id: o.orderId })}</h2>
            <span class={stateChip(o.state)} data-state={o.state}>
              {t(`goodsIn.state.${o.state}`)}
            </span>
            {!wallboard.value && (
              <a class="framed gi-back" href={hrefOf('goods-in')} ref={back}>
                {t('goodsIn.changeOrder')}
              </a>
            )}
          </div>
          <div class="gi-layout">
            <div class="gi-main">
              {capture ? (
                <CaptureForm order={o} onOrder={show} current={current} unit={unit} />
              ) : !open ? (
                <p class="notice">{t(`goodsIn.closed.${o.state}`)}</p>
              ) : (
                !can('receiving-orders:write') && <p class="notice">{t('goodsIn.readOnly')}</p>
              )}
            </div>
            <div class="gi-side">
              <Positions positions={o.positions} current={current} unit={unit} choosable={capture} />
              <BookedList />
            </div>
          </div>
        </>
      )}
    </>
  );
}
