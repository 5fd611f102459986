import { useSignal, type Signal } from '@preact/signals';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { ApiFailure, request } from '../../api.ts';
import { t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';
import { siteDefaultType, UnitTypeField, useUnitTypes } from '../../unit-types.tsx';
import { FeedbackLine, type Feedback, type Scan } from './feedback.tsx';
import type { Position, ReceivingOrder } from './orders.ts';
import { baseOf, formatMagnitude, parseMagnitude, quantityOf, sameFamily, unitOf, unitsLike } from './quantity.ts';
import { addBooked, loadUnit, loadUnitType, setLoadUnit, setLoadUnitType, setTransportUnit, transportUnit } from './session.ts';
import { setSound, signalScan, soundOn } from './sound.ts';

// Capturing goods against the order (POST /v1/receiving-orders/{pKey}/capture): the
// pallet they go on, the quantity and its unit, then one scan per article.
//
// Keyboard-wedge scanners type the code and Enter into the focused field. So the
// article field is never disabled and never loses the focus: Enter takes the code and
// the quantity as they are, empties the field at once and queues the booking; bookings
// go to the appliance one after the other, in scan order. A fast second scan is thus
// neither lost nor mixed into the first. The quantity goes back to 1 with each scan.
// Every scan gets its answer: a green line with what was booked, or a red one with the
// appliance's refusal in the user's language (and a sound, when turned on).
//
// The first booking onto a new pallet creates its load unit, of the type chosen under
// "Load unit": the site's transport unit types, the site's default (unit-types.tsx)
// chosen until this device chooses another, so the first scan needs no typing.

interface Props {
  order: ReceivingOrder;
  onOrder: (order: ReceivingOrder) => void;
  /** The position whose unit the quantity is in (pKey). */
  current: Signal<string | undefined>;
  unit: Signal<string>;
}

export const focusScan = () => document.getElementById('gi-scan')?.focus();

/** The position a code books on: the first not yet complete of its product, else any of it. */
const positionFor = (order: ReceivingOrder, sku: string): Position | undefined =>
  order.positions.find((p) => p.product.sku === sku && (p.state === 'OPEN' || p.state === 'PROCESSING')) ?? order.positions.find((p) => p.product.sku === sku);

export function CaptureForm({ order, onOrder, current, unit }: Props) {
  const unitField = useRef<HTMLInputElement>(null);
  const scanField = useRef<HTMLInputElement>(null);
  const quantity = useSignal('1');
  const feedback = useSignal<Feedback | undefined>(undefined);
  const waiting = useSignal(0);
  const queue = useRef<Scan[]>([]);
  const working = useRef(false);
  const types = useUnitTypes();
  /** This device's choice, else the site's default. */
  const luType = loadUnitType.value.trim() || siteDefaultType(types.value);
  const luOpen = useSignal(false);
  // Bookings run after the render that queued them: they read the order as it is then.
  const latest = useRef(order);
  latest.current = order;

  useLayoutEffect(() => {
    (transportUnit.value ? scanField : unitField).current?.focus();
  }, []);

  const book = async (scan: Scan) => {
    const magnitude = parseMagnitude(scan.quantity);
    if (Number.isNaN(magnitude)) return refuse(scan, { textKey: 'goodsIn.badQuantity' });
    if (!scan.transportUnit) return refuse(scan, { textKey: 'goodsIn.noTransportUnit' });
    const before = latest.current;
    const position = positionFor(before, scan.code);
    // A unit of another family than the position's would be refused: the position's own unit then.
    const bookedUnit = position && !sameFamily(scan.unit, unitOf(position.quantityExpected)) ? unitOf(position.quantityExpected) : scan.unit;
    try {
      const reply = await request<ReceivingOrder>('POST', `/v1/receiving-orders/${encodeURIComponent(before.pKey)}/capture`, {
        body: {
          quantityReceived: quantityOf(magnitude, bookedUnit),
          product: { sku: scan.code },
          barcode: scan.transportUnit,
          loadUnitLabel: scan.loadUnit || '1',
        },
        query: { loadUnitType: scan.loadUnitType || undefined },
      });
      const after = reply.body;
      const moved = after.positions.filter((p) => {
        const was = before.positions.find((b) => b.pKey === p.pKey);
        return p.product.sku === scan.code && (!was || baseOf(was.quantityReceived) !== baseOf(p.quantityReceived));
      });
      onOrder(after);
      if (moved[0]) current.value = moved[0].pKey;
      feedback.value = { kind: 'done', scan, magnitude, unit: bookedUnit, positions: moved };
      addBooked({
        at: new Date().toISOString(),
        orderId: after.orderId,
        sku: scan.code,
        quantity: formatMagnitude(magnitude),
        unit: bookedUnit,
        transportUnit: scan.transportUnit,
        loadUnit: scan.loadUnit || '1',
      });
      signalScan(true);
    } catch (err) {
      refuse(scan, { error: err, onOrder: position !== undefined });
      // The quantity typed for this scan comes back, unless the next one is already set.
      if (quantity.value === '1' && queue.current.length === 0) quantity.value = scan.quantity;
    }
  };

  const refuse = (scan: Scan, why: { error?: unknown; textKey?: string; onOrder?: boolean }) => {
    feedback.value = { kind: 'failed', scan, ...why };
    // Refused for want of a load unit type: the place to give one opens.
    if (why.error instanceof ApiFailure && why.error.messageKey === 'svc.wms.inv.pu.loadUnitTypeMissing') luOpen.value = true;
    signalScan(false);
  };

  const work = async () => {
    if (working.current) return;
    working.current = true;
    while (queue.current.length) {
      const scan = queue.current.shift()!;
      waiting.value = queue.current.length;
      await book(scan);
    }
    working.current = false;
  };

  const onScan = (e: Event) => {
    e.preventDefault();
    const field = scanField.current;
    const code = field?.value.trim() ?? '';
    if (!field || !code) return;
    field.value = '';
    queue.current.push({
      code,
      quantity: quantity.value,
      unit: unit.value,
      transportUnit: transportUnit.value.trim(),
      loadUnit: loadUnit.value.trim(),
      loadUnitType: luType,
    });
    quantity.value = '1';
    waiting.value = queue.current.length;
    void work();
  };

  const position = order.positions.find((p) => p.pKey === current.value);
  return (
    <div class="gi-capture">
      <form
        class="gi-row"
        onSubmit={(e) => {
          // Enter after the pallet's label: on to the articles.
          e.preventDefault();
          if (transportUnit.value.trim()) focusScan();
        }}
      >
        <div class="gi-field gi-grow">
          <label for="gi-unit">{t('goodsIn.unitField')}</label>
          <input
            id="gi-unit"
            ref={unitField}
            class="gi-code"
            value={transportUnit.value}
            onInput={(e) => setTransportUnit(e.currentTarget.value)}
            aria-describedby="gi-unit-hint"
            autocomplete="off"
            autocapitalize="off"
            spellcheck={false}
            enterKeyHint="next"
            maxLength={64}
          />
          <p class="muted gi-hint" id="gi-unit-hint">
            {t('goodsIn.unitHint')}
          </p>
        </div>
      </form>
      <form
        class="gi-row"
        onSubmit={(e) => {
          e.preventDefault();
          focusScan();
        }}
      >
        <div class="gi-field gi-quantity">
          <label for="gi-quantity">{t('goodsIn.quantity')}</label>
          <input
            id="gi-quantity"
            inputMode="decimal"
            autocomplete="off"
            enterKeyHint="next"
            value={quantity.value}
            onInput={(e) => (quantity.value = e.currentTarget.value)}
            aria-describedby="gi-current"
          />
        </div>
        <div class="gi-field gi-unit-choice">
          <label for="gi-unit-symbol">{t('goodsIn.unit')}</label>
          <select id="gi-unit-symbol" value={unit.value} onChange={(e) => (unit.value = e.currentTarget.value)}>
            {unitsLike(unit.value).map((u) => (
              <option key={u} value={u}>
                {u}
              </option>
            ))}
          </select>
        </div>
        {position && (
          <p class="muted gi-hint gi-current" id="gi-current">
            {t('goodsIn.current', { unit: unitOf(position.quantityExpected), id: position.positionId })}
          </p>
        )}
      </form>
      <form class="gi-row gi-scan-form" onSubmit={onScan}>
        <div class="gi-field gi-grow">
          <label for="gi-scan">{t('goodsIn.scanField')}</label>
          <div class="field-row">
            <input
              id="gi-scan"
              ref={scanField}
              class="gi-code"
              aria-describedby="gi-scan-hint"
              autocomplete="off"
              autocapitalize="off"
              spellcheck={false}
              enterKeyHint="send"
              maxLength={128}
            />
            <button type="submit" class="primary">
              {t('goodsIn.book')}
            </button>
          </div>
          <p class="muted gi-hint" id="gi-scan-hint">
            {t('goodsIn.scanHint')}
          </p>
        </div>
      </form>
      <FeedbackLine feedback={feedback.value} waiting={waiting.value} />
      <details class="disclosure gi-load-unit" open={luOpen.value} onToggle={(e) => (luOpen.value = e.currentTarget.open)}>
        <summary>
          {luType ? t('goodsIn.loadUnitOfType', { label: loadUnit.value || '1', type: luType }) : t('goodsIn.loadUnit', { label: loadUnit.value || '1' })}
        </summary>
        <label for="gi-lu-label">{t('goodsIn.loadUnitLabel')}</label>
        <input id="gi-lu-label" value={loadUnit.value} onInput={(e) => setLoadUnit(e.currentTarget.value)} autocomplete="off" maxLength={64} />
        <label for="gi-lu-type">{t('goodsIn.loadUnitType')}</label>
        <UnitTypeField id="gi-lu-type" types={types.value} value={luType} onChange={setLoadUnitType} describedBy="gi-lu-type-hint" />
        <p class="muted gi-hint" id="gi-lu-type-hint">
          {t('goodsIn.loadUnitTypeHint')}
        </p>
      </details>
      <button type="button" class="tool gi-sound" aria-pressed={soundOn.value} onClick={() => setSound(!soundOn.value)}>
        <Icon name={soundOn.value ? 'soundOn' : 'soundOff'} />
        <span>{t(soundOn.value ? 'goodsIn.soundOn' : 'goodsIn.soundOff')}</span>
      </button>
    </div>
  );
}
