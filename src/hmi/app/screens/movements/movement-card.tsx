import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useId, useLayoutEffect, useRef } from 'preact/hooks';
import { ApiFailure, request, type FailureKey } from '../../api.ts';
import { now } from '../../clock.ts';
import { errorText, formatAge, formatTime, hasText, t } from '../../i18n.ts';
import { wallboard } from '../../prefs.ts';
import { can } from '../../session.ts';
import { Confirm } from '../../confirm.tsx';
import { isOpen, targetIsLocation, type Movement } from './movement.ts';
import { useRefocus, workLook, type WorkOutcome } from '../../work-card.ts';

// One movement: which unit, from where to where, its state and dates; and, for users
// with movements:write, what can be done with it in its state: activate (INACTIVE) or
// set back to inactive (ACTIVE), complete onto a location, cancel (after a question).
// The outcome goes to the screen, which puts the movement as the appliance answered.

type MovementOutcome = WorkOutcome<Movement>;

type Step = 'complete' | 'cancel';

const path = (m: Movement) => `/v1/movements/${encodeURIComponent(m.pKey)}`;

export function MovementCard({ movement: m, outcome }: { movement: Movement; outcome: MovementOutcome }) {
  const step = useSignal<Step | undefined>(undefined);
  const busy = useSignal(false);
  const card = useRef<HTMLLIElement>(null);
  /** Back from a question or form, or a step done: the focus returns to the card's buttons (the pressed one is gone). */
  const refocus = useRefocus(card);
  const back = () => {
    step.value = undefined;
    refocus();
  };
  const actions = can('movements:write') && !wallboard.value && isOpen(m);

  /** Sends one step; resolves to the refusal's text, or undefined when it was done. */
  const act = async (
    send: () => Promise<Movement>,
    done: string,
    describe: (err: unknown, m: Movement) => Promise<string> = movementError,
  ): Promise<string | undefined> => {
    busy.value = true;
    try {
      const updated = await send();
      step.value = undefined;
      outcome.done(updated, t(done, { unit: updated.transportUnitBk }));
      refocus();
      return undefined;
    } catch (err) {
      const message = await describe(err, m);
      outcome.failed(m.pKey, message);
      return message;
    } finally {
      busy.value = false;
    }
  };
  const patchState = (state: 'ACTIVE' | 'INACTIVE') =>
    act(
      async () => (await request<Movement>('PATCH', path(m), { body: { state } })).body,
      state === 'ACTIVE' ? 'movements.done.activated' : 'movements.done.deactivated',
    );
  const cancel = () => act(async () => (await request<Movement>('DELETE', path(m))).body, 'movements.done.cancelled');

  const unit = m.transportUnitBk;
  const look = workLook(m.state);
  return (
    <li ref={card} class={`card edged work-card movement${look.card}`} data-movement={m.pKey} data-state={m.state}>
      <div class="card-head">
        <h2 class="work-title">{unit}</h2>
        <span class="chip">{t(`movements.type.${m.type}`)}</span>
        <span class={`chip state-chip${look.chip}`}>{t(`movements.state.${m.state}`)}</span>
      </div>
      <p class="work-route">
        <span>
          <span class="visually-hidden">{t('movements.from')} </span>
          <strong>{m.sourceLocation}</strong> <span class="muted">({m.sourceLocationGroupName})</span>
        </span>
        <span aria-hidden="true" class="work-arrow">
          →
        </span>
        <span>
          <span class="visually-hidden">{t('movements.to')} </span>
          <strong>{m.target}</strong>
          {targetIsLocation(m) && <span class="muted"> ({m.targetLocationGroup})</span>}
          {!targetIsLocation(m) && <span class="muted"> ({t('movements.anyLocationOfGroup')})</span>}
        </span>
      </p>
      <dl class="facts">
        <Fact label={t('movements.priority')}>{m.priority}</Fact>
        {m.latestDueAt && (
          <Fact label={t('movements.due')}>
            <time dateTime={m.latestDueAt}>{formatTime(m.latestDueAt)}</time>
          </Fact>
        )}
        {m.sku && <Fact label={t('movements.sku')}>{m.sku}</Fact>}
        {m.initiator && <Fact label={t('movements.initiator')}>{m.initiator}</Fact>}
        <Fact label={t('movements.created')}>
          <time dateTime={m.createdAt}>{formatTime(m.createdAt)}</time> ({formatAge(m.createdAt, now.value)})
        </Fact>
        {m.startedAt && (
          <Fact label={t('movements.started')}>
            <time dateTime={m.startedAt}>{formatTime(m.startedAt)}</time>
          </Fact>
        )}
        {m.finishedAt && (
          <Fact label={t('movements.finished')}>
            <time dateTime={m.finishedAt}>{formatTime(m.finishedAt)}</time>
          </Fact>
        )}
      </dl>
      {actions && !step.value && (
        <div class="actions">
          {m.state === 'INACTIVE' && (
            <button type="button" class="primary" disabled={busy.value} onClick={() => void patchState('ACTIVE')}>
              {t('movements.activate')}
            </button>
          )}
          {m.state === 'ACTIVE' && (
            <button type="button" disabled={busy.value} onClick={() => void patchState('INACTIVE')}>
              {t('movements.deactivate')}
            </button>
          )}
          <button type="button" class={m.state === 'ACTIVE' ? 'primary' : undefined} disabled={busy.value} onClick={() => (step.value = 'complete')}>
            {t('movements.complete')}
          </button>
          <button type="button" disabled={busy.value} onClick={() => (step.value = 'cancel')}>
            {t('movements.cancel')}
          </button>
        </div>
      )}
      {actions && step.value === 'cancel' && (
        <Confirm
          label={t('movements.cancelLabel', { unit })}
          question={t('movements.cancelQuestion', { unit })}
          confirm={t('movements.confirmCancel')}
          back={t('movements.keep')}
          busy={busy.value}
          onConfirm={() => void cancel()}
          onBack={back}
        />
      )}
      {actions && step.value === 'complete' && (
        <CompleteForm
          movement={m}
          busy={busy.value}
          onSubmit={(target) =>
            act(async () => (await request<Movement>('POST', `${path(m)}/complete`, { body: { target } })).body, 'movements.done.completed', completionError)
          }
          onBack={back}
        />
      )}
    </li>
  );
}

function Fact({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * Completion books the unit onto the location where it was put down: the movement's own
 * target when that is a location (filled in), else what the operator types or scans (a
 * coordinate or a location's ERP code; a scanner's Enter sends it). It cannot be undone:
 * the form says so, and its button is the confirmation.
 */
function CompleteForm(props: { movement: Movement; busy: boolean; onSubmit: (target: string) => Promise<string | undefined>; onBack: () => void }) {
  const { movement: m, busy, onSubmit, onBack } = props;
  const id = useId();
  const target = useSignal(targetIsLocation(m) ? m.target : '');
  const problem = useSignal('');
  const field = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => field.current?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const value = target.value.trim();
    if (!value) {
      problem.value = t('movements.targetMissing');
      field.current?.focus();
      return;
    }
    problem.value = '';
    // A refusal stays by the field too, to be corrected there (an unknown location, a group).
    problem.value = (await onSubmit(value)) ?? '';
  };
  return (
    <form class="card-form work-form" onSubmit={(e) => void submit(e)} aria-label={t('movements.completeLabel', { unit: m.transportUnitBk })} noValidate>
      <label for={`${id}-target`}>{t('movements.putDownOn')}</label>
      <input
        id={`${id}-target`}
        ref={field}
        value={target.value}
        autoComplete="off"
        spellcheck={false}
        aria-describedby={`${id}-hint ${id}-problem`}
        aria-invalid={problem.value ? true : undefined}
        onInput={(e) => (target.value = e.currentTarget.value)}
      />
      <p id={`${id}-hint`} class="muted work-hint">
        {t('movements.putDownHint', { unit: m.transportUnitBk })}
      </p>
      <p id={`${id}-problem`} class="error-text">
        {problem.value}
      </p>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {t('movements.confirmComplete')}
        </button>
        <button type="button" disabled={busy} onClick={onBack}>
          {t('movements.back')}
        </button>
      </div>
    </form>
  );
}

/** The refusals of a movement that ended meanwhile: done or cancelled, which the refusal does not say. */
const ENDED: readonly FailureKey[] = ['svc.wms.mov.mov.completedNotMoved', 'svc.wms.mov.mov.completedNotCancelled'];

/**
 * A refusal in this screen's words where it has them (`movements.error.<messageKey>`),
 * else the shell's. For a movement that ended meanwhile, how it ended is read from the
 * appliance (`movements.error.<messageKey>.<state>`); unreadable, the refusal says both.
 */
async function movementError(err: unknown, m: Movement): Promise<string> {
  if (!(err instanceof ApiFailure)) return errorText(err);
  if (ENDED.includes(err.messageKey)) {
    const state = await request<Movement>('GET', path(m)).then(
      (reply) => reply.body.state,
      () => undefined,
    );
    if (state && hasText(`movements.error.${err.messageKey}.${state}`)) return t(`movements.error.${err.messageKey}.${state}`);
  }
  if (hasText(`movements.error.${err.messageKey}`)) return t(`movements.error.${err.messageKey}`);
  return errorText(err);
}

/** A refusal of a completion: the appliance's generic 400 here means "a group, not a location". */
async function completionError(err: unknown, m: Movement): Promise<string> {
  if (err instanceof ApiFailure && err.messageKey === 'core.validation.error') return t('movements.targetNotLocation');
  return movementError(err, m);
}
