import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { FormActions } from '../../feedback.tsx';
import { t } from '../../i18n.ts';
import { PRIORITIES, priorityText, targetText, type TransportOrder } from './order.ts';
import { refusalText, type Named } from './refusal.ts';

// The forms of a card: change the priority, redirect to a new target, cancel (with a
// confirmation). Each sends one request; what became of it is told by the screen.

interface FormProps {
  order: TransportOrder;
  onClose: () => void;
  onFailed: (message: string) => void;
}

/** Sends, keeps the form open and says why when refused (naming what was not found among `named`). */
function useSubmit(onFailed: (message: string) => void, during: 'redirect' | 'change') {
  const busy = useSignal(false);
  const run = async (send: () => Promise<unknown>, named?: Named) => {
    busy.value = true;
    try {
      await send();
    } catch (err) {
      onFailed(await refusalText(err, during, named));
    } finally {
      busy.value = false;
    }
  };
  return { busy, run };
}

/** An order's priority, in the user's words; the new order's form has one too. */
export function PrioritySelect({ id, value, onChange }: { id: string; value: string; onChange: (priority: string) => void }) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
      {PRIORITIES.map((p) => (
        <option key={p} value={p}>
          {priorityText(p)}
        </option>
      ))}
    </select>
  );
}

export function PriorityForm({ order, onClose, onFailed, submit }: FormProps & { submit: (priority: string) => Promise<unknown> }) {
  const id = useId();
  const priority = useSignal(order.priority);
  const { busy, run } = useSubmit(onFailed, 'change');
  return (
    <form
      class="card-form order-form"
      aria-label={t('orders.changePriorityOf', { unit: order.transportUnitBK })}
      onSubmit={(e) => {
        e.preventDefault();
        void run(() => submit(priority.value));
      }}
    >
      <label for={`${id}-priority`}>{t('orders.priority')}</label>
      <PrioritySelect id={`${id}-priority`} value={priority.value} onChange={(v) => (priority.value = v)} />
      <FormActions send={t('orders.save')} back={t('orders.back')} busy={busy.value} onBack={onClose} />
    </form>
  );
}

export function RedirectForm({
  order,
  onClose,
  onFailed,
  submit,
}: FormProps & { submit: (location: string | null, group: string | null) => Promise<unknown> }) {
  const id = useId();
  const location = useSignal(order.targetLocation ?? '');
  const group = useSignal(order.targetLocationGroup ?? '');
  const { busy, run } = useSubmit(onFailed, 'redirect');
  return (
    <form
      class="card-form order-form"
      aria-label={t('orders.redirectOf', { unit: order.transportUnitBK })}
      onSubmit={(e) => {
        e.preventDefault();
        // An empty field clears that target (null); the appliance insists one remains.
        const named = { location: location.value.trim() || null, group: group.value.trim() || null };
        void run(() => submit(named.location, named.group), named);
      }}
    >
      <p class="muted">{t('orders.redirectHint', { target: targetText(order.targetLocation, order.targetLocationGroup) })}</p>
      <label for={`${id}-location`}>{t('orders.targetLocation')}</label>
      <input
        id={`${id}-location`}
        value={location.value}
        autoComplete="off"
        spellcheck={false}
        placeholder="AREA/AISLE/X/Y/Z"
        onInput={(e) => (location.value = e.currentTarget.value)}
      />
      <label for={`${id}-group`}>{t('orders.targetGroup')}</label>
      <input id={`${id}-group`} value={group.value} autoComplete="off" spellcheck={false} onInput={(e) => (group.value = e.currentTarget.value)} />
      <FormActions send={t('orders.confirmRedirect')} back={t('orders.back')} busy={busy.value} onBack={onClose} />
    </form>
  );
}

export function CancelForm({ order, onClose, onFailed, submit }: FormProps & { submit: () => Promise<unknown> }) {
  const { busy, run } = useSubmit(onFailed, 'change');
  return (
    <form
      class="card-form order-form"
      aria-label={t('orders.cancelOf', { unit: order.transportUnitBK })}
      onSubmit={(e) => {
        e.preventDefault();
        void run(submit);
      }}
    >
      <p>{t('orders.cancelQuestion', { unit: order.transportUnitBK, target: targetText(order.targetLocation, order.targetLocationGroup) })}</p>
      <FormActions send={t('orders.confirmCancel')} back={t('orders.keep')} busy={busy.value} onBack={onClose} danger />
    </form>
  );
}
