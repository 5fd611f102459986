import { useSignal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { Failure, outcomeTo, Toasts, useToast, type Outcome } from '../../feedback.tsx';
import { t } from '../../i18n.ts';
import { subscribe } from '../../live.ts';
import { wallboard } from '../../prefs.ts';
import { decodePart, hrefOf } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { can } from '../../session.ts';
import { laneOrders, LANES, sharedBoard, type Board, type LaneId } from './board.ts';
import { CreateForm } from './create-form.tsx';
import { OrderCard } from './order-card.tsx';
import { ORDER_EVENTS } from './order.ts';

// The transport orders board (docs/hmi.md): waiting, running and just ended orders in
// lanes by state, live; on a phone one lane at a time, chosen by a state filter.
// `#/orders/new` opens the form for a new order, `#/orders/new/<barcode>` with the unit
// filled in (the unit screen links there).

export default function OrdersScreen({ rest }: ScreenProps) {
  const board = useMemo(sharedBoard, []);
  const toast = useToast();
  /** The lane a phone shows (the board shows all). */
  const shown = useSignal<LaneId>('running');

  useEffect(() => {
    void board.load();
    return subscribe([...ORDER_EVENTS, 'transportUnit.moved'], board.onEvent, () => void board.load());
  }, []);
  const onOutcome = outcomeTo(toast);

  const writer = can('transport-orders:write') && !wallboard.value;
  const creating = writer && (rest === 'new' || rest.startsWith('new/'));
  const initialBarcode = rest.startsWith('new/') ? decodePart(rest.slice(4)) : '';
  const orders = board.orders.value;

  return (
    <section class="screen orders" aria-labelledby="orders-title">
      <div class="screen-head">
        <h1 id="orders-title">{t('orders.title')}</h1>
        {writer && !creating && (
          <a class="button primary" href={hrefOf('orders', 'new')}>
            {t('orders.new')}
          </a>
        )}
        {!wallboard.value && (
          <div class="lane-filter">
            <label for="orders-lane">{t('orders.showLane')}</label>
            <select id="orders-lane" value={shown.value} onChange={(e) => (shown.value = e.currentTarget.value as LaneId)}>
              {LANES.map((lane) => (
                <option key={lane} value={lane}>
                  {t(`orders.lane.${lane}`)} ({laneOrders(orders.values(), lane).length}
                  {board.next.value[lane] ? '+' : ''})
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      {creating && (
        <CreateForm
          key={initialBarcode}
          initialBarcode={initialBarcode}
          onCreated={(o) => board.created(o)}
          onClose={() => (location.hash = hrefOf('orders'))}
          onOutcome={onOutcome}
        />
      )}
      {board.error.value !== undefined && <Failure error={board.error.value} retry={() => void board.load()} />}
      {!board.loaded.value ? (
        board.error.value === undefined && <p class="empty">{t('screen.loading')}</p>
      ) : (
        <div class="board">
          {LANES.map((lane) => (
            <Lane key={lane} lane={lane} board={board} onOutcome={onOutcome} phoneHidden={lane !== shown.value} />
          ))}
        </div>
      )}
      <Toasts toast={toast} />
    </section>
  );
}

function Lane({ lane, board, onOutcome, phoneHidden }: { lane: LaneId; board: Board; onOutcome: Outcome; phoneHidden: boolean }) {
  const orders = laneOrders(board.orders.value.values(), lane);
  const at = board.unitAt.value;
  const next = board.next.value[lane];
  const titleId = `orders-lane-${lane}`;
  return (
    <section class={`framed lane lane-${lane}${phoneHidden ? ' phone-hidden' : ''}`} data-lane={lane} aria-labelledby={titleId}>
      <h2 id={titleId} class="lane-title">
        {t(`orders.lane.${lane}`)} <span class="framed lane-count">{orders.length + (next ? '+' : '')}</span>
      </h2>
      {lane === 'ended' && <p class="lane-hint muted">{t('orders.endedHint')}</p>}
      {orders.length === 0 ? (
        <p class="empty">{t(`orders.none.${lane}`)}</p>
      ) : (
        <ul class="plain-list order-list" aria-labelledby={titleId}>
          {orders.map((o) => (
            <OrderCard key={o.persistentKey} order={o} at={at.get(o.transportUnitBK)} board={board} onOutcome={onOutcome} />
          ))}
        </ul>
      )}
      {next && !wallboard.value && lane !== 'ended' && (
        <button type="button" class="more" disabled={board.busy.value === lane} onClick={() => void board.more(lane)}>
          {t('action.more')}
        </button>
      )}
    </section>
  );
}
