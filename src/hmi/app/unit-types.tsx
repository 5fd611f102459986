import { useSignal, type Signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get } from './api.ts';
import { can } from './session.ts';
import type * as Wire from '../../contract/replies.ts';

// The site's transport unit types (GET /v1/transport-unit-types, grant
// transport-unit-types:read), offered as a list wherever a screen creates a unit or a
// load unit (goods-in, unit search), instead of a name to be guessed.
//
// The site's default type is the first of the appliance's list, which is ordered by
// name: `EURO` on a fresh box, the only one where a site keeps a single type. A site
// that wants another default for every device keeps only the types it uses; a device
// that chooses another keeps its own choice where the screen remembers it (goods-in).
// Without the grant, or when the list cannot be read, a screen takes a typed name, as
// the API does.

/** What the choice shows of a transport unit type. */
type UnitType = Pick<Wire.TransportUnitType, 'type' | 'description'>;

/** The types, read when the component is first shown; undefined until read, or when they cannot be. */
export function useUnitTypes(): Signal<readonly UnitType[] | undefined> {
  const types = useSignal<readonly UnitType[] | undefined>(undefined);
  useEffect(() => {
    if (!can('transport-unit-types:read')) return;
    let shown = true;
    get<UnitType[]>('/v1/transport-unit-types').then(
      (reply) => shown && (types.value = reply.body ?? []),
      // Without the list the field takes a typed name: nothing to tell here.
      () => undefined,
    );
    return () => {
      shown = false;
    };
  }, []);
  return types;
}

/** The site's default type: the first by name. */
export const siteDefaultType = (types: readonly UnitType[] | undefined): string => types?.[0]?.type ?? '';

interface FieldProps {
  id: string;
  types: readonly UnitType[] | undefined;
  value: string;
  onChange: (type: string) => void;
  describedBy?: string;
}

/**
 * The choice of a type: the list when there is one (a name kept from before that is no
 * longer in it stays offered, last), else a text field for a typed name.
 */
export function UnitTypeField({ id, types, value, onChange, describedBy }: FieldProps) {
  if (!types?.length) {
    return (
      <input
        id={id}
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
        autocomplete="off"
        spellcheck={false}
        maxLength={64}
        aria-describedby={describedBy}
      />
    );
  }
  const names = types.map((t) => t.type);
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)} aria-describedby={describedBy}>
      {types.map((t) => (
        <option key={t.type} value={t.type}>
          {t.description ? `${t.type} – ${t.description}` : t.type}
        </option>
      ))}
      {value && !names.includes(value) && <option value={value}>{value}</option>}
    </select>
  );
}
