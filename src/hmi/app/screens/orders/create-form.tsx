import { useSignal } from '@preact/signals';
import { useId, useLayoutEffect, useRef } from 'preact/hooks';
import { post } from '../../api.ts';
import { FormActions, type Outcome } from '../../feedback.tsx';
import { t } from '../../i18n.ts';
import { PrioritySelect } from './order-forms.tsx';
import { stateText, targetText, type TransportOrder } from './order.ts';
import { refusalText } from './refusal.ts';

// A new transport order: the unit's barcode (typed, or scanned by a keyboard-wedge
// scanner, whose Enter moves on to the target instead of sending a half-filled form),
// the target location and/or group, the priority.

export function CreateForm({
  initialBarcode,
  onCreated,
  onClose,
  onOutcome,
}: {
  initialBarcode: string;
  onCreated: (o: TransportOrder) => void;
  onClose: () => void;
  onOutcome: Outcome;
}) {
  const id = useId();
  const barcode = useSignal(initialBarcode);
  const location = useSignal('');
  const group = useSignal('');
  const priority = useSignal('NORMAL');
  const busy = useSignal(false);
  const first = useRef<HTMLInputElement>(null);
  const target = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => (initialBarcode ? target : first).current?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    // Checked here, not by the browser, whose own bubble speaks the browser's language.
    if (!barcode.value.trim()) {
      onOutcome('failed', t('orders.error.noBarcode'));
      first.current?.focus();
      return;
    }
    busy.value = true;
    const body: Record<string, string> = { barcode: barcode.value.trim(), priority: priority.value };
    if (location.value.trim()) body.targetLocation = location.value.trim();
    if (group.value.trim()) body.targetLocationGroup = group.value.trim();
    try {
      const order = (await post<TransportOrder>('/v1/transport-orders', body)).body;
      onCreated(order);
      onOutcome(
        'done',
        t('orders.done.created', {
          unit: order.transportUnitBK,
          target: targetText(order.targetLocation, order.targetLocationGroup),
          state: stateText(order.state),
        }),
      );
      barcode.value = '';
      location.value = '';
      group.value = '';
      first.current?.focus();
    } catch (err) {
      onOutcome(
        'failed',
        await refusalText(err, 'create', { barcode: body.barcode!, location: body.targetLocation ?? null, group: body.targetLocationGroup ?? null }),
      );
    } finally {
      busy.value = false;
    }
  };

  return (
    <form class="order-create card" aria-labelledby={`${id}-title`} onSubmit={submit}>
      <h2 id={`${id}-title`}>{t('orders.new')}</h2>
      <div class="order-create-fields">
        <div>
          <label for={`${id}-barcode`}>{t('orders.unitBarcode')}</label>
          <input
            id={`${id}-barcode`}
            ref={first}
            aria-required="true"
            value={barcode.value}
            autoComplete="off"
            spellcheck={false}
            onInput={(e) => (barcode.value = e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key !== 'Enter') return;
              e.preventDefault();
              target.current?.focus();
            }}
          />
        </div>
        <div>
          <label for={`${id}-location`}>{t('orders.targetLocation')}</label>
          <input
            id={`${id}-location`}
            ref={target}
            value={location.value}
            autoComplete="off"
            spellcheck={false}
            placeholder="AREA/AISLE/X/Y/Z"
            onInput={(e) => (location.value = e.currentTarget.value)}
          />
        </div>
        <div>
          <label for={`${id}-group`}>{t('orders.targetGroup')}</label>
          <input id={`${id}-group`} value={group.value} autoComplete="off" spellcheck={false} onInput={(e) => (group.value = e.currentTarget.value)} />
        </div>
        <div>
          <label for={`${id}-priority`}>{t('orders.priority')}</label>
          <PrioritySelect id={`${id}-priority`} value={priority.value} onChange={(v) => (priority.value = v)} />
        </div>
      </div>
      <p class="muted">{t('orders.targetHint')}</p>
      <FormActions send={t('orders.create')} back={t('action.close')} busy={busy.value} onBack={onClose} />
    </form>
  );
}
