import { useSignal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { Confirm } from './confirm.tsx';
import { errorText, plural, t } from './i18n.ts';
import { Icon } from './icons.tsx';
import { handover, inPair, pairReadFailed, pairStatus, switchOver, type PairStatus } from './pair-watch.ts';
import { wallboard } from './prefs.ts';
import { can } from './session.ts';

// The pair in the top bar, for a box of a hot-standby pair only (docs/hmi.md, "The
// pair"): which box is active, whether this page is on the standby (which takes no
// changes), coloured by the pair's health. It opens a panel with the details and, for
// a user who may, on the active, the planned switchover.

type Health = 'healthy' | 'degraded' | 'unknown';

/** `healthy` is absent in the answers of boxes that do not judge it yet: unknown, not healthy. */
const healthOf = (status: PairStatus): Health => (status.healthy === undefined ? 'unknown' : status.healthy ? 'healthy' : 'degraded');

/** A degradation in the user's words, from its kind; the appliance's English where the page has none. */
function degradationText(d: NonNullable<PairStatus['degraded']>[number]): string {
  if (d.node === undefined) return d.message; // no box heard to name
  const key = `pair.degraded.${d.kind}`;
  const text = t(key, { node: d.node });
  return text === key ? d.message : text;
}

/** What the bar says, short: the active box and, on any other box, where this page is. */
function summary(status: PairStatus & { node: string }): string[] {
  if (handover.value) return [t('pair.handover')];
  const holder = status.lease?.holder;
  const lines = [holder ? t('pair.active', { node: holder }) : t('pair.noActive')];
  if (status.role === 'standby') lines.push(t('pair.onStandby', { node: status.node }));
  else if (status.role !== 'active') lines.push(t('pair.thisBox', { node: status.node, role: t(`pair.role.${status.role}`) }));
  return lines;
}

/** Its colour: nobody active is critical, a degraded pair major, a healthy one ok; unknown health stays plain. */
function toneOf(status: PairStatus, health: Health): string {
  if (handover.value) return 'fill-warning';
  if (!status.lease?.holder) return 'fill-critical';
  return health === 'healthy' ? 'fill-ok' : health === 'degraded' ? 'fill-major' : '';
}

/** The tooltip: what degrades the pair, one a line; and when the status is not fresh. */
function titleOf(status: PairStatus, health: Health): string {
  const lines =
    health === 'healthy' ? [t('pair.healthyTitle')] : health === 'degraded' ? [t('pair.degradedTitle'), ...(status.degraded ?? []).map(degradationText)] : [];
  if (pairReadFailed.value) lines.push(t('pair.readFailed'));
  return lines.join('\n');
}

export function PairIndicator() {
  const status = pairStatus.value;
  const open = useSignal(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // A click or tap elsewhere closes the panel, as Escape does.
  useEffect(() => {
    if (!open.value) return;
    const onDown = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) open.value = false;
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [open.value]);
  if (!inPair(status)) return null;

  const health = healthOf(status);
  const lines = summary(status);
  const title = titleOf(status, health);
  const look = `pair-indicator ${toneOf(status, health)}`;
  const data = { 'data-active': status.lease?.holder ?? '', 'data-role': status.role, 'data-health': health, 'data-stale': pairReadFailed.value };
  // The name said is the words shown, the lines apart, then the health not written out.
  const text = (
    <>
      {lines.map((line, i) => (
        <span key={i} class={i === 0 ? 'pair-active' : 'pair-here'}>
          {i > 0 && <span class="visually-hidden">. </span>}
          {line}
        </span>
      ))}
      <span class="visually-hidden">. {t('pair.said', { health: t(`pair.health.${health}`) })}</span>
    </>
  );
  // A wall screen has nothing to press: the words and the colour only.
  if (wallboard.value) {
    return (
      <span id="pair" class={look} title={title} role="status" {...data}>
        <Icon name="pair" />
        {text}
      </span>
    );
  }
  const close = () => {
    open.value = false;
    button.current?.focus();
  };
  return (
    <div class="pair" ref={root} onKeyDown={(e) => e.key === 'Escape' && open.value && close()}>
      <button
        type="button"
        id="pair"
        ref={button}
        class={look}
        title={title}
        aria-expanded={open.value}
        aria-controls="pair-panel"
        onClick={() => (open.value = !open.value)}
        {...data}
      >
        <Icon name="pair" />
        {text}
      </button>
      {open.value && <PairPanel status={status} health={health} onClose={close} />}
    </div>
  );
}

function PairPanel({ status, health, onClose }: { status: PairStatus & { pair: string; node: string }; health: Health; onClose: () => void }) {
  const asking = useSignal(false);
  const busy = useSignal(false);
  const error = useSignal<string | undefined>(undefined);
  const closer = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  const panel = useRef<HTMLElement>(null);
  const atEnd = useSignal(false);
  // Below the indicator, from its left edge; from its right edge where that would leave the screen.
  useLayoutEffect(() => {
    const box = panel.current?.getBoundingClientRect();
    if (box && box.right > document.documentElement.clientWidth) atEnd.value = true;
  }, []);
  // The question answered or put away: the focus goes back into the panel, not to the page's top.
  useLayoutEffect(() => {
    if (asking.value) asked.current = true;
    else if (asked.current) closer.current?.focus();
  }, [asking.value]);
  const holder = status.lease?.holder;
  const peer = status.peer;
  // The standby's distance from the log's end: its own on the standby, as the standby last told it on the active.
  const lag = status.role === 'active' ? peer?.lagEntries : status.replication?.lagEntries;
  const mayHandOver = can('ha:write') && status.role === 'active' && !handover.value;
  // Handed over with no standby that follows, the lease would lie free until this box takes it back.
  const noStandby = (status.degraded ?? []).some((d) => d.kind === 'standbyMissing');

  const confirm = async () => {
    busy.value = true;
    error.value = undefined;
    try {
      await switchOver();
      asking.value = false;
    } catch (err) {
      error.value = errorText(err);
    } finally {
      busy.value = false;
    }
  };

  return (
    <section id="pair-panel" ref={panel} class={`pair-panel${atEnd.value ? ' at-end' : ''}`} aria-labelledby="pair-panel-title">
      <h2 id="pair-panel-title">{t('pair.title', { pair: status.pair })}</h2>
      <dl class="pair-facts">
        <dt>{t('pair.thisBoxLabel')}</dt>
        <dd data-fact="this">{t('pair.boxRole', { node: status.node, role: t(`pair.role.${status.role}`) })}</dd>
        <dt>{t('pair.activeLabel')}</dt>
        <dd data-fact="active">
          {holder ?? t('pair.nobody')}
          {holder && holder !== status.node && status.lease?.holderUrl && (
            <>
              {' · '}
              <a href={`${status.lease.holderUrl.replace(/\/$/, '')}/hmi/`}>{t('pair.openActive')}</a>
            </>
          )}
        </dd>
        <dt>{t('pair.peerLabel')}</dt>
        <dd data-fact="peer">
          {peer ? t('pair.peerHeard', { node: peer.node, role: t(`pair.role.${peer.role}`), s: Math.round(peer.heardMsAgo / 1000) }) : t('pair.peerUnknown')}
        </dd>
        {lag !== undefined && (
          <>
            <dt>{t('pair.lagLabel')}</dt>
            <dd data-fact="lag">{plural('pair.lag', lag)}</dd>
          </>
        )}
        <dt>{t('pair.healthLabel')}</dt>
        <dd data-fact="health">{t(`pair.health.${health}`)}</dd>
      </dl>
      {health === 'degraded' && (
        <ul class="pair-degraded">
          {(status.degraded ?? []).map((d) => (
            <li key={`${d.kind}-${d.node}`}>{degradationText(d)}</li>
          ))}
        </ul>
      )}
      {status.problem && <p class="pair-problem">{t('pair.problem', { problem: status.problem })}</p>}
      {pairReadFailed.value && <p class="muted">{t('pair.readFailed')}</p>}
      {mayHandOver && noStandby && <p class="muted">{t('pair.noSwitchover')}</p>}
      <div role="status">{handover.value && <p class="notice">{t('pair.handoverUnderWay', { node: handover.value.from })}</p>}</div>
      {asking.value ? (
        <Confirm
          label={t('pair.switchover')}
          question={t('pair.switchoverQuestion', { node: peer?.node ?? t('pair.theStandby') })}
          confirm={t('pair.switchover')}
          back={t('action.cancel')}
          busy={busy.value}
          onConfirm={() => void confirm()}
          onBack={() => (asking.value = false)}
        />
      ) : (
        <div class="actions">
          {mayHandOver && !noStandby && (
            <button type="button" class="danger" onClick={() => (asking.value = true)}>
              {t('pair.switchover')}
            </button>
          )}
          <button type="button" ref={closer} onClick={onClose}>
            {t('action.close')}
          </button>
        </div>
      )}
      {error.value && (
        <p class="error-text" role="alert">
          {error.value}
        </p>
      )}
    </section>
  );
}
