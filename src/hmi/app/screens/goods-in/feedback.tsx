import { ApiFailure } from '../../api.ts';
import { errorText, plural, t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';
import type { Position } from './orders.ts';
import { formatMagnitude, formatQuantity, inUnit, unitOf } from './quantity.ts';

// The answer to each scan, in words rendered when shown (so a language switch changes
// it too): what was booked, or why not.

/** A scan as it was queued: the code and the form's values at its Enter. */
export interface Scan {
  code: string;
  quantity: string;
  unit: string;
  transportUnit: string;
  loadUnit: string;
  loadUnitType: string;
}

export type Feedback =
  | { kind: 'done'; scan: Scan; magnitude: number; unit: string; positions: Position[] }
  | { kind: 'failed'; scan: Scan; error?: unknown; textKey?: string };

/** The answer to the last scan, big: green with what was booked, or red with why not. */
export function FeedbackLine({ feedback, waiting }: { feedback: Feedback | undefined; waiting: number }) {
  return (
    <div class="gi-feedback-area">
      <div role="status">
        {feedback?.kind === 'done' && (
          <div class="gi-feedback done" data-kind="done">
            <p class="gi-feedback-title">
              <Icon name="check" />
              <span>{t('goodsIn.booked', { quantity: `${formatMagnitude(feedback.magnitude)} ${feedback.unit}`, sku: feedback.scan.code, unit: feedback.scan.transportUnit })}</span>
            </p>
            {feedback.positions.map((p) => (
              <p key={p.pKey} class="gi-feedback-detail">
                {t('goodsIn.bookedPosition', { id: p.positionId, received: formatQuantity(inUnit(p.quantityReceived, unitOf(p.quantityExpected))), expected: formatQuantity(p.quantityExpected) })}
              </p>
            ))}
          </div>
        )}
        {waiting > 0 && <p class="muted">{plural('goodsIn.queued', waiting)}</p>}
      </div>
      <div role="alert">
        {feedback?.kind === 'failed' && (
          <div class="gi-feedback failed" data-kind="failed">
            <p class="gi-feedback-title">
              <Icon name="warning" />
              <span>{t('goodsIn.refused', { code: feedback.scan.code })}</span>
            </p>
            <p class="gi-feedback-detail">{feedback.textKey ? t(feedback.textKey) : refusalText(feedback.error)}</p>
          </div>
        )}
      </div>
    </div>
  );
}

/** The appliance's refusal in the user's language; a refused field named for what goods-in sends. */
const refusalText = (error: unknown): string =>
  error instanceof ApiFailure && error.messageKey === 'core.validation.error' ? t('goodsIn.invalidInput') : errorText(error);

