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
  /** `onOrder`: the order has a position for the scanned article (complete or not). */
  | { kind: 'failed'; scan: Scan; error?: unknown; textKey?: string; onOrder?: boolean };

/** The answer to the last scan, big: green with what was booked, or red with why not. */
export function FeedbackLine({ feedback, waiting }: { feedback: Feedback | undefined; waiting: number }) {
  return (
    <div class="gi-feedback-area">
      <div role="status">
        {feedback?.kind === 'done' && (
          <div class="gi-feedback done" data-kind="done">
            <p class="gi-feedback-title">
              <Icon name="check" />
              <span>
                {t('goodsIn.booked', {
                  quantity: `${formatMagnitude(feedback.magnitude)} ${feedback.unit}`,
                  sku: feedback.scan.code,
                  unit: feedback.scan.transportUnit,
                })}
              </span>
            </p>
            {feedback.positions.map((p) => (
              <p key={p.pKey} class="gi-feedback-detail">
                {t('goodsIn.bookedPosition', {
                  id: p.positionId,
                  received: formatQuantity(inUnit(p.quantityReceived, unitOf(p.quantityExpected))),
                  expected: formatQuantity(p.quantityExpected),
                })}
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
            <p class="gi-feedback-detail">
              {feedback.textKey ? t(feedback.textKey) : refusalText(feedback.error, feedback.scan.code, feedback.onOrder ?? false)}
            </p>
          </div>
        )}
      </div>
    </div>
  );
}

/** The appliance's refusal in the user's language, saying which case it is; a refused field named for what goods-in sends. */
function refusalText(error: unknown, sku: string, onOrder: boolean): string {
  if (!(error instanceof ApiFailure)) return errorText(error);
  switch (error.messageKey) {
    case 'core.validation.error':
      return t('goodsIn.invalidInput');
    // With the SKU alone: no such article; with the order too: none of its open positions expects it.
    case 'svc.wms.rec.product404':
      if (error.obj.length < 2) return t('goodsIn.refusal.unknownArticle', { sku });
      return t(onOrder ? 'goodsIn.refusal.positionsComplete' : 'goodsIn.refusal.notOnOrder', { sku });
    // The order's state is the second value.
    case 'svc.wms.rec.order.captureDenied':
      return t(error.obj[1] === 'CANCELED' ? 'goodsIn.refusal.orderCancelled' : 'goodsIn.refusal.orderComplete');
    default:
      return errorText(error);
  }
}
