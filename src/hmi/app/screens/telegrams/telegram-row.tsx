import { useSignal } from '@preact/signals';
import { hasText, t } from '../../i18n.ts';
import { formatClock, formatMs } from './format.ts';
import { isLate } from './latency.ts';
import type { Telegram } from './tail.ts';

// One telegram of the tail: a line with time, direction, type, sequence number, unit,
// location, outcome and (a reply) its latency, marked when late; opened, the telegram
// decoded field by field as the log gives them (`fields`), and its text as on the wire.
// The details are built only when opened: the tail holds hundreds of telegrams.

const orText = (prefix: string, value: string) => (hasText(`${prefix}.${value}`) ? t(`${prefix}.${value}`) : value);

export function TelegramRow({ telegram, threshold }: { telegram: Telegram; threshold: number }) {
  const open = useSignal(false);
  const late = isLate(telegram.latencyMs, threshold);
  const dir = telegram.direction;
  return (
    <li
      class={`tg-row ${dir}${late ? ' late' : ''}`}
      data-id={telegram.id}
      data-type={telegram.type ?? ''}
      data-direction={dir}
      data-outcome={telegram.outcome}
    >
      <details onToggle={(e) => (open.value = (e.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <time class="tg-time" dateTime={telegram.at}>
            {formatClock(telegram.at)}
          </time>
          <span class="tg-dir">{t(`telegrams.dir.${dir}`)}</span>
          <span class="tg-type">{telegram.type ?? '????'}</span>
          {telegram.seq !== null && <span class="tg-seq">#{String(telegram.seq).padStart(5, '0')}</span>}
          {telegram.barcode && <span class="tg-barcode">{telegram.barcode}</span>}
          {telegram.location && <span class="tg-location">{telegram.location}</span>}
          <span class={`tg-outcome outcome-${telegram.outcome}`}>{orText('telegrams.outcome', telegram.outcome)}</span>
          {telegram.latencyMs !== null && (
            <span class="tg-latency">
              {formatMs(telegram.latencyMs)}
              {late && <strong class="tg-late">{t('telegrams.late')}</strong>}
            </span>
          )}
        </summary>
        {open.value && <Decoded telegram={telegram} />}
      </details>
    </li>
  );
}

function Decoded({ telegram }: { telegram: Telegram }) {
  const fields = telegram.fields;
  // An OSIP telegram's fields have a header; a signal channel's entry (point, address, value) has none.
  const header = (fields && 'header' in fields ? (fields.header ?? {}) : {}) as Record<string, unknown>;
  const payload = fields ? Object.entries(fields).filter(([k]) => k !== 'type' && k !== 'header') : [];
  return (
    <div class="tg-decoded">
      {fields ? (
        <dl class="tg-fields">
          {Object.entries(header).map(([k, v]) => (
            <Field key={`h-${k}`} name={`header.${k}`} value={v} />
          ))}
          {payload.map(([k, v]) => (
            <Field key={k} name={k} value={v} />
          ))}
        </dl>
      ) : (
        <p class="muted">{t('telegrams.undecodable')}</p>
      )}
      <dl class="tg-fields">
        {telegram.order && <Field name="order" value={telegram.order} />}
        {telegram.connection !== null && <Field name="connection" value={telegram.connection} />}
      </dl>
      <p class="tg-text-label">{t('telegrams.text')}</p>
      {/* Focusable: a keyboard scrolls a long telegram sideways. */}
      <pre class="tg-text" tabIndex={0}>
        {telegram.text}
      </pre>
    </div>
  );
}

function Field({ name, value }: { name: string; value: unknown }) {
  return (
    <div>
      <dt>
        {hasText(`telegrams.field.${name}`) && `${t(`telegrams.field.${name}`)} `}
        <code>{name}</code>
      </dt>
      <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
    </div>
  );
}
