import type { Signal } from '@preact/signals';
import { t } from '../../i18n.ts';
import { focusScan } from './capture.tsx';
import { stateChip, type Position } from './orders.ts';
import { baseOf, formatQuantity, inUnit, unitOf } from './quantity.ts';

// The order's positions: what is expected, what has been received, updated with every
// booking (this desk's, and others' by the live events). Choosing one puts the quantity
// in its unit; the focus goes back to the article field for the next scan.

export function Positions({
  positions,
  current,
  unit,
  choosable,
}: {
  positions: Position[];
  current: Signal<string | undefined>;
  unit: Signal<string>;
  choosable: boolean;
}) {
  return (
    <section class="gi-positions" aria-labelledby="gi-positions-title">
      <h2 id="gi-positions-title" class="gi-subtitle">
        {t('goodsIn.positions')}
      </h2>
      <ul class="plain-list">
        {positions.map((p) => {
          const body = <PositionLine position={p} />;
          return (
            <li key={p.pKey} data-position={p.positionId} data-state={p.state} class={p.pKey === current.value ? 'current' : undefined}>
              {choosable ? (
                <button
                  type="button"
                  class="framed gi-position"
                  aria-pressed={p.pKey === current.value}
                  onClick={() => {
                    current.value = p.pKey;
                    unit.value = unitOf(p.quantityExpected);
                    focusScan();
                  }}
                >
                  <span class="visually-hidden">{t('goodsIn.choosePosition', { id: p.positionId })}: </span>
                  {body}
                </button>
              ) : (
                <div class="framed gi-position">{body}</div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function PositionLine({ position: p }: { position: Position }) {
  const expected = baseOf(p.quantityExpected);
  return (
    <>
      <span class="gi-position-head">
        <span class="gi-position-id">{p.positionId}</span>
        <strong class="gi-sku">{p.product.sku}</strong>
        <span class={stateChip(p.state)}>{t(`goodsIn.position.${p.state}`)}</span>
      </span>
      <span class="gi-received">
        {t('goodsIn.received', {
          received: formatQuantity(inUnit(p.quantityReceived, unitOf(p.quantityExpected))),
          expected: formatQuantity(p.quantityExpected),
        })}
      </span>
      <progress max={expected} value={Math.min(expected, baseOf(p.quantityReceived))} aria-hidden="true" />
    </>
  );
}
