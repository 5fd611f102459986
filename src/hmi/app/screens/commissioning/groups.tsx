import { useSignal } from '@preact/signals';
import { ApiFailure, post } from '../../api.ts';
import { FormError } from '../../feedback.tsx';
import { errorText, t } from '../../i18n.ts';
import { ListView } from '../../lists/list-view.tsx';
import type { LiveList } from '../../lists/live-list.ts';
import { wallboard } from '../../prefs.ts';
import { can } from '../../session.ts';
import { done } from './outcome.tsx';
import type { LocationGroup } from './topology.ts';

// Location groups: the list (name, parent, children), paged, and a new group under a
// parent (grant location-groups:write). A group is what a route, a default hop and the
// PLC's SYSU address as a whole; a new one takes its parent's states.

export function GroupsPanel({ groups, names }: { groups: LiveList<LocationGroup>; names: readonly string[] }) {
  return (
    <section class="card cm-panel" aria-labelledby="cm-groups-title">
      <h2 id="cm-groups-title">{t('commissioning.groups.title')}</h2>
      {can('location-groups:write') && !wallboard.value && <NewGroup names={names} onCreated={() => void groups.reload()} />}
      <ListView
        list={groups}
        listClass="cm-list"
        labelledBy="cm-groups-title"
        item={(g) => (
          <li key={g.pKey} data-group={g.name}>
            <strong>{g.name}</strong>
            <span class="muted">{g.parentName ? t('commissioning.groups.under', { parent: g.parentName }) : t('commissioning.groups.root')}</span>
            {g.description && <span class="cm-desc">{g.description}</span>}
          </li>
        )}
      />
    </section>
  );
}

function NewGroup({ names, onCreated }: { names: readonly string[]; onCreated: () => void }) {
  const name = useSignal('');
  const parent = useSignal('WAREHOUSE');
  const description = useSignal('');
  const busy = useSignal(false);
  const error = useSignal('');

  // The default parent may be gone (renamed, deleted): then a root is offered.
  const chosen = parent.value === '' || names.includes(parent.value) ? parent.value : '';

  const submit = async (e: Event) => {
    e.preventDefault();
    busy.value = true;
    error.value = '';
    const created = name.value.trim();
    try {
      await post('/v1/location-groups', {
        name: created,
        ...(chosen ? { parentName: chosen } : {}),
        ...(description.value.trim() ? { description: description.value.trim() } : {}),
      });
      done(t('commissioning.groups.created', { name: created }));
      name.value = '';
      description.value = '';
      onCreated();
    } catch (err) {
      error.value = err instanceof ApiFailure && err.messageKey === 'already.exists' ? t('commissioning.groups.exists', { name: created }) : errorText(err);
    } finally {
      busy.value = false;
    }
  };

  return (
    <form class="cm-form" onSubmit={submit} aria-label={t('commissioning.groups.new')}>
      <div class="cm-fields">
        <div>
          <label for="cm-group-name">{t('commissioning.groups.name')}</label>
          <input
            id="cm-group-name"
            required
            maxLength={255}
            autocapitalize="characters"
            spellcheck={false}
            value={name.value}
            onInput={(e) => (name.value = e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="cm-group-parent">{t('commissioning.groups.parent')}</label>
          <select id="cm-group-parent" value={chosen} onChange={(e) => (parent.value = e.currentTarget.value)}>
            <option value="">{t('commissioning.groups.noParent')}</option>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
      </div>
      <label for="cm-group-description">{t('commissioning.groups.description')}</label>
      <input id="cm-group-description" maxLength={500} value={description.value} onInput={(e) => (description.value = e.currentTarget.value)} />
      <FormError message={error.value} />
      <button type="submit" class="primary" disabled={busy.value}>
        {t('commissioning.groups.create')}
      </button>
    </form>
  );
}
