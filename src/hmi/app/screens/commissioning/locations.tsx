import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiFailure, post } from '../../api.ts';
import { FormError } from '../../feedback.tsx';
import { errorText, plural, t } from '../../i18n.ts';
import { done } from './outcome.tsx';
import { expand, type Pattern } from './pattern.ts';
import { coordinateProblem, findingText, PARTS, plcWarning, type Finding } from './coordinate.ts';

// New locations (grant locations:write): one by its coordinate, or many from a
// coordinate pattern. The appliance has no bulk create (docs/common-module.md): the
// pattern is expanded here, shown before anything is sent, then created one request
// each, in order, with progress; the first refusal stops the run and says which
// coordinate and why, and the ones created before it stay. A coordinate is checked as
// it is typed (coordinate.ts): what the appliance would refuse is said part by part and
// nothing is sent; one no PLC could address is created only after a warning.

/** The group a new location or a route's end belongs to: one must be chosen. */
export function GroupSelect({ id, names, value, onChange }: { id: string; names: readonly string[]; value: string; onChange: (v: string) => void }) {
  return (
    <select id={id} required value={value} onChange={(e) => onChange(e.currentTarget.value)}>
      <option value="">{t('commissioning.locations.chooseGroup')}</option>
      {names.map((n) => (
        <option key={n} value={n}>
          {n}
        </option>
      ))}
    </select>
  );
}

/** A location refused as existing: by its coordinate, or by the PLC code (the appliance names the value taken in `obj`). */
function takenText(err: unknown, coordinate: string, plcCode: string): string | undefined {
  if (!(err instanceof ApiFailure) || err.messageKey !== 'already.exists') return undefined;
  return plcCode && err.obj[0] === plcCode && plcCode !== coordinate
    ? t('commissioning.locations.plcCodeTaken', { plcCode })
    : t('commissioning.locations.exists', { coordinate });
}

export function NewLocation({ names }: { names: readonly string[] }) {
  const coordinate = useSignal('');
  const group = useSignal('');
  const plcCode = useSignal('');
  const busy = useSignal(false);
  const error = useSignal('');
  /** Set once the coordinate was left or sent: from then on it is checked as it changes. */
  const checked = useSignal(false);
  /** The coordinate and PLC code whose warning has been on the screen: only such a one may be overruled. */
  const warnedFor = useSignal('');

  const locationId = coordinate.value.trim();
  const code = plcCode.value.trim();
  const subject = `${locationId}\n${code}`;
  const problem = checked.value ? coordinateProblem(locationId) : undefined;
  const warning = checked.value && !problem ? plcWarning(locationId, code) : undefined;
  // After the render that showed it (an Enter commits the field and sends at once: the
  // warning must have been seen, not only computed).
  useEffect(() => {
    warnedFor.value = warning ? subject : '';
  }, [warning?.key, subject]);

  const submit = async (e: Event) => {
    e.preventDefault();
    checked.value = true;
    error.value = '';
    if (coordinateProblem(locationId)) {
      document.getElementById('cm-location-id')?.focus();
      return;
    }
    if (plcWarning(locationId, code) && warnedFor.value !== subject) return;
    busy.value = true;
    try {
      await post('/v1/locations', { locationId, locationGroupName: group.value, ...(code ? { plcCode: code } : {}) });
      done(t('commissioning.locations.created', { coordinate: locationId }));
      coordinate.value = '';
      plcCode.value = '';
      checked.value = false;
    } catch (err) {
      error.value = takenText(err, locationId, code) ?? errorText(err);
    } finally {
      busy.value = false;
    }
  };

  return (
    <form class="cm-form" onSubmit={submit} aria-labelledby="cm-location-title">
      <h3 id="cm-location-title">{t('commissioning.locations.one')}</h3>
      <label for="cm-location-id">{t('commissioning.locations.coordinate')}</label>
      <input
        id="cm-location-id"
        required
        placeholder="CONV/0001/0001/0000/0000"
        spellcheck={false}
        autocapitalize="characters"
        aria-describedby="cm-location-hint cm-location-check"
        aria-invalid={problem ? 'true' : undefined}
        value={coordinate.value}
        onInput={(e) => (coordinate.value = e.currentTarget.value)}
        onChange={() => (checked.value = coordinate.value.trim() !== '')}
      />
      <p id="cm-location-hint" class="cm-hint">
        {t('commissioning.locations.coordinateHint')}
      </p>
      <CoordinateCheck id="cm-location-check" problem={problem} warning={warning} />
      <div class="cm-fields">
        <div>
          <label for="cm-location-group">{t('commissioning.locations.group')}</label>
          <GroupSelect id="cm-location-group" names={names} value={group.value} onChange={(v) => (group.value = v)} />
        </div>
        <div>
          <label for="cm-location-plc">{t('commissioning.locations.plcCode')}</label>
          <input id="cm-location-plc" maxLength={64} spellcheck={false} value={plcCode.value} onInput={(e) => (plcCode.value = e.currentTarget.value)} />
        </div>
      </div>
      <FormError message={error.value} />
      <button type="submit" class="primary" disabled={busy.value}>
        {t(warning ? 'commissioning.locations.createAnyway' : 'commissioning.locations.create')}
      </button>
    </form>
  );
}

/** What the check of a coordinate found: a refusal in red, or a warning to be overruled. */
function CoordinateCheck({ id, problem, warning }: { id: string; problem: Finding | undefined; warning: Finding | undefined }) {
  return (
    <div id={id} role="alert">
      {problem && <p class="error-text cm-check-problem">{findingText(problem)}</p>}
      {warning && <p class="cm-warning">{findingText(warning)}</p>}
    </div>
  );
}

type Run =
  | { state: 'idle' }
  | { state: 'preview'; coordinates: string[]; /** Why no PLC could address them, when so. */ plc?: Finding | undefined }
  | { state: 'running' | 'cancelled'; coordinates: string[]; created: number }
  | { state: 'finished'; coordinates: string[] }
  | { state: 'stopped'; coordinates: string[]; created: number; at: string; reason: string };

const EMPTY: Pattern = { area: '', aisle: '', x: '', y: '', z: '' };

export function BulkLocations({ names }: { names: readonly string[] }) {
  const pattern = useSignal<Pattern>({ ...EMPTY, y: '0000', z: '0000' });
  const group = useSignal('');
  const run = useSignal<Run>({ state: 'idle' });
  const problem = useSignal<Finding | undefined>(undefined);
  /** Set by Stop: the run ends after the request under way. */
  const stopAsked = useSignal(false);

  const setPart = (part: keyof Pattern, value: string) => {
    pattern.value = { ...pattern.value, [part]: value };
    // A changed pattern needs a new preview before anything is created.
    if (run.value.state !== 'running') run.value = { state: 'idle' };
  };

  const preview = (e: Event) => {
    e.preventDefault();
    const expansion = expand(pattern.value);
    if ('problem' in expansion) {
      problem.value = expansion.problem;
      run.value = { state: 'idle' };
      if (expansion.problem.part) document.getElementById(`cm-bulk-${expansion.problem.part}`)?.focus();
      return;
    }
    problem.value = undefined;
    run.value = { state: 'preview', coordinates: expansion.coordinates, plc: expansion.plc };
  };

  const create = async () => {
    const current = run.value;
    if (current.state !== 'preview') return;
    const { coordinates } = current;
    stopAsked.value = false;
    for (let i = 0; i < coordinates.length; i++) {
      if (stopAsked.value) {
        run.value = { state: 'cancelled', coordinates, created: i };
        return;
      }
      run.value = { state: 'running', coordinates, created: i };
      try {
        await post('/v1/locations', { locationId: coordinates[i], locationGroupName: group.value });
      } catch (err) {
        run.value = { state: 'stopped', coordinates, created: i, at: coordinates[i]!, reason: takenText(err, coordinates[i]!, '') ?? errorText(err) };
        return;
      }
    }
    run.value = { state: 'finished', coordinates };
    done(plural('commissioning.bulk.finished', coordinates.length));
  };

  const r = run.value;
  const busy = r.state === 'running';
  return (
    <form class="cm-form" onSubmit={preview} aria-labelledby="cm-bulk-title">
      <h3 id="cm-bulk-title">{t('commissioning.bulk.title')}</h3>
      <p id="cm-bulk-hint" class="cm-hint">
        {t('commissioning.bulk.hint')}
      </p>
      <fieldset class="cm-pattern" disabled={busy}>
        <legend>{t('commissioning.bulk.pattern')}</legend>
        {PARTS.map((part) => (
          <div key={part}>
            <label for={`cm-bulk-${part}`}>{t(`commissioning.part.${part}`)}</label>
            <input
              id={`cm-bulk-${part}`}
              required
              spellcheck={false}
              autocapitalize="characters"
              aria-describedby="cm-bulk-hint"
              aria-invalid={problem.value?.part === part ? 'true' : undefined}
              value={pattern.value[part]}
              onInput={(e) => setPart(part, e.currentTarget.value)}
            />
          </div>
        ))}
      </fieldset>
      <label for="cm-bulk-group">{t('commissioning.locations.group')}</label>
      <GroupSelect id="cm-bulk-group" names={names} value={group.value} onChange={(v) => (group.value = v)} />
      <FormError message={problem.value ? findingText(problem.value) : undefined} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {t('commissioning.bulk.preview')}
        </button>
      </div>
      {r.state !== 'idle' && <BulkRun run={r} groupChosen={group.value !== ''} onCreate={() => void create()} onStop={() => (stopAsked.value = true)} />}
    </form>
  );
}

function BulkRun({
  run,
  groupChosen,
  onCreate,
  onStop,
}: {
  run: Exclude<Run, { state: 'idle' }>;
  groupChosen: boolean;
  onCreate: () => void;
  onStop: () => void;
}) {
  const total = run.coordinates.length;
  const created = run.state === 'finished' ? total : run.state === 'preview' ? 0 : run.created;
  return (
    <div class="card-form cm-bulk-run" data-state={run.state}>
      <p>
        <strong>{plural('commissioning.bulk.count', total)}</strong>
      </p>
      <ol class="cm-preview" tabIndex={0} aria-label={t('commissioning.bulk.previewLabel')}>
        {run.coordinates.map((c, i) => (
          <li key={c} class={i < created ? 'made' : run.state === 'stopped' && c === run.at ? 'refused' : undefined}>
            {c}
          </li>
        ))}
      </ol>
      {run.state === 'preview' && run.plc && (
        <p class="cm-warning" role="alert">
          {findingText(run.plc)}
        </p>
      )}
      {run.state === 'preview' && (
        <div class="actions">
          <button type="button" class="primary" disabled={!groupChosen} onClick={onCreate}>
            {plural('commissioning.bulk.create', total)}
          </button>
          {!groupChosen && <span class="cm-hint">{t('commissioning.bulk.needGroup')}</span>}
        </div>
      )}
      {run.state !== 'preview' && (
        <>
          <progress max={total} value={created} aria-label={t('commissioning.bulk.progressLabel')} />
          <p role="status" class="cm-progress">
            {t('commissioning.bulk.progress', { done: created, n: total })}
          </p>
        </>
      )}
      {run.state === 'running' && (
        <button type="button" onClick={onStop}>
          {t('commissioning.bulk.stop')}
        </button>
      )}
      {run.state === 'stopped' && (
        <p class="cm-stopped" role="alert" data-at={run.at}>
          {plural('commissioning.bulk.stopped', run.created, { at: run.at, reason: run.reason })}
        </p>
      )}
      {run.state === 'cancelled' && <p role="status">{plural('commissioning.bulk.cancelled', run.created)}</p>}
    </div>
  );
}
