import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { request } from '../../api.ts';
import { FormActions, type Outcome } from '../../feedback.tsx';
import { errorText, t } from '../../i18n.ts';

// Locking and unlocking a location for inbound or outbound, with a reason, after a
// confirmation: the state change of docs/common-module.md (`errorCode` position 0 is
// inbound, 1 outbound, counted from the right; `*` leaves a position as it is). Offered
// only with the grant locations:write (the panel decides).

export type Direction = 'in' | 'out';

export interface LockChange {
  direction: Direction;
  /** true: lock; false: unlock. */
  lock: boolean;
}

export const actionKey = (c: LockChange) => `map.${c.lock ? 'lock' : 'unlock'}.${c.direction}`;

const errorCode = ({ direction, lock }: LockChange) => (direction === 'in' ? `*******${lock ? 1 : 0}` : `******${lock ? 1 : 0}*`);

export function LockForm({
  id,
  pKey,
  change,
  onOutcome,
  onClose,
  onDone,
}: {
  id: string;
  pKey: string;
  change: LockChange;
  onOutcome: Outcome;
  onClose: () => void;
  onDone: () => void;
}) {
  const uid = useId();
  const reason = useSignal('');
  const busy = useSignal(false);
  const action = t(actionKey(change));

  const submit = async (e: Event) => {
    e.preventDefault();
    busy.value = true;
    try {
      // The reason goes as typed: the appliance decides what it accepts, and says why not.
      await request('PATCH', `/v1/location/${encodeURIComponent(pKey)}`, {
        query: { op: 'change-state' },
        body: { errorCode: errorCode(change), reason: reason.value },
      });
      onOutcome('done', t(`map.done.${change.lock ? 'lock' : 'unlock'}.${change.direction}`, { id }));
      onDone();
      onClose();
    } catch (err) {
      onOutcome('failed', errorText(err));
      busy.value = false;
    }
  };

  return (
    <form class="card-form map-lock-form" onSubmit={submit} aria-label={`${action}: ${id}`}>
      <p>{t(change.lock ? 'map.lock.confirm' : 'map.unlock.confirm', { action, id })}</p>
      <label for={`${uid}-reason`}>{t('map.lock.reason')}</label>
      <textarea
        id={`${uid}-reason`}
        required
        rows={2}
        aria-describedby={`${uid}-hint`}
        value={reason.value}
        onInput={(e) => (reason.value = e.currentTarget.value)}
      />
      <p id={`${uid}-hint`} class="muted map-hint">
        {t('map.lock.reasonHint')}
      </p>
      <FormActions send={action} back={t('action.cancel')} busy={busy.value} onBack={onClose} />
    </form>
  );
}
