import { useSignal } from '@preact/signals';
import { request } from '../../api.ts';
import { now } from '../../clock.ts';
import type { Outcome } from '../../feedback.tsx';
import { formatAge, formatTime, t } from '../../i18n.ts';
import { wallboard } from '../../prefs.ts';
import { hrefOf } from '../../router.ts';
import { can } from '../../session.ts';
import type { Board } from './board.ts';
import { breakable } from './breakable.tsx';
import { isEnded, priorityChip, priorityEdge, priorityText, stateChip, stateText, targetText, type TransportOrder } from './order.ts';
import { CancelForm, PriorityForm, RedirectForm } from './order-forms.tsx';

// One transport order on the board: priority, unit, where it came from, where its unit
// stands now and where it goes, how long ago it was made; and, for users with the grant
// transport-orders:write, change priority, redirect and cancel while it has not ended.

type Mode = 'priority' | 'redirect' | 'cancel';

export function OrderCard({ order, at, board, onOutcome }: { order: TransportOrder; at: string | undefined; board: Board; onOutcome: Outcome }) {
  const mode = useSignal<Mode | undefined>(undefined);
  const ended = isEnded(order.state);
  const actions = can('transport-orders:write') && !wallboard.value && !ended;
  const unitLink = can('transport-units:read');
  const close = () => (mode.value = undefined);
  /** After a change: the order as the appliance has it now (a PATCH answers 204). */
  const done = async (message: string) => {
    onOutcome('done', message);
    close();
    await board.reread(order.persistentKey).catch(() => {});
  };
  return (
    <li class={`order card edged${priorityEdge(order.priority)}`} data-order={order.persistentKey} data-state={order.state} data-unit={order.transportUnitBK}>
      <div class="order-head">
        <span class={priorityChip(order.priority)}>{priorityText(order.priority)}</span>
        {unitLink ? (
          <a class="order-unit" href={hrefOf('units', encodeURIComponent(order.transportUnitBK))}>
            {order.transportUnitBK}
          </a>
        ) : (
          <strong class="order-unit">{order.transportUnitBK}</strong>
        )}
        <span class="order-age" title={t('orders.createdAt', { time: formatTime(order.createDt) })}>
          <span class="visually-hidden">{t('orders.age')} </span>
          {formatAge(order.createDt, now.value)}
        </span>
      </div>
      <ol class="plain-list order-path" aria-label={t('orders.path')}>
        <li>
          <span class="path-label">{t('orders.from')}</span> <span>{breakable(order.sourceLocation)}</span>
        </li>
        {!ended && (
          <li class="path-now">
            <span class="path-label">{t('orders.now')}</span> <span>{breakable(at ?? '–')}</span>
          </li>
        )}
        <li class="path-target">
          <span class="path-label">{t('orders.to')}</span> <span>{breakable(targetText(order.targetLocation, order.targetLocationGroup))}</span>
        </li>
      </ol>
      {ended && (
        <p class="order-end">
          <span class={stateChip(order.state)}>{stateText(order.state)}</span>{' '}
          {order.endDate && <time dateTime={order.endDate}>{formatTime(order.endDate)}</time>}
        </p>
      )}
      {order.message && <p class="order-message">{order.message}</p>}
      {actions && !mode.value && (
        <div class="actions">
          <button type="button" onClick={() => (mode.value = 'priority')}>
            {t('orders.changePriority')}
          </button>
          <button type="button" onClick={() => (mode.value = 'redirect')}>
            {t('orders.redirect')}
          </button>
          <button type="button" class="danger" onClick={() => (mode.value = 'cancel')}>
            {t('orders.cancel')}
          </button>
        </div>
      )}
      {actions && mode.value === 'priority' && (
        <PriorityForm
          order={order}
          onClose={close}
          onFailed={(m) => onOutcome('failed', m)}
          submit={(priority) =>
            request('PATCH', `/v1/transport-orders/${encodeURIComponent(order.persistentKey)}`, { body: { priority } }).then(() =>
              done(t('orders.done.priority', { unit: order.transportUnitBK, priority: priorityText(priority) })),
            )
          }
        />
      )}
      {actions && mode.value === 'redirect' && (
        <RedirectForm
          order={order}
          onClose={close}
          onFailed={(m) => onOutcome('failed', m)}
          submit={(targetLocation, targetLocationGroup) =>
            request('PATCH', `/v1/transport-orders/${encodeURIComponent(order.persistentKey)}`, { body: { targetLocation, targetLocationGroup } }).then(() =>
              done(t('orders.done.redirected', { unit: order.transportUnitBK, target: targetText(targetLocation, targetLocationGroup) })),
            )
          }
        />
      )}
      {actions && mode.value === 'cancel' && (
        <CancelForm
          order={order}
          onClose={close}
          onFailed={(m) => onOutcome('failed', m)}
          submit={() =>
            request<TransportOrder>('DELETE', `/v1/transport-orders/${encodeURIComponent(order.persistentKey)}`).then((reply) => {
              board.put(reply.body);
              onOutcome('done', t('orders.done.canceled', { unit: order.transportUnitBK }));
            })
          }
        />
      )}
    </li>
  );
}
