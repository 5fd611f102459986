import { useSignal } from '@preact/signals';
import { BARCODE_PATTERN } from '../../../../contract/rules.ts';
import { post } from '../../api.ts';
import { FormError } from '../../feedback.tsx';
import { errorText, t } from '../../i18n.ts';
import { siteDefaultType, UnitTypeField, useUnitTypes } from '../../unit-types.tsx';
import { coordinateProblem, findingText } from '../commissioning/coordinate.ts';

// "Create unit here": a barcode that no transport unit has, searched by someone who may
// create units (grant transport-units:write), is offered as a new unit, standing at a
// location typed or scanned, of a type chosen from the site's (its default preselected,
// unit-types.tsx). The first unit of a new site needs no API call by hand then.

export function CreateUnit({ barcode, onCreated }: { barcode: string; onCreated: () => void }) {
  const location = useSignal('');
  const chosenType = useSignal('');
  const busy = useSignal(false);
  const error = useSignal('');
  const types = useUnitTypes();
  const type = chosenType.value || siteDefaultType(types.value);

  if (!BARCODE_PATTERN.test(barcode)) {
    return <p class="notice unit-create-barcode">{t('units.create.badBarcode', { barcode })}</p>;
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    const at = location.value.trim();
    const problem = coordinateProblem(at);
    if (problem) {
      error.value = findingText(problem);
      document.getElementById('unit-create-location')?.focus();
      return;
    }
    busy.value = true;
    error.value = '';
    try {
      await post('/v1/transport-units', { barcode, actualLocation: at, transportUnitType: type.trim() });
      onCreated();
    } catch (err) {
      error.value = errorText(err);
    } finally {
      busy.value = false;
    }
  };

  return (
    <form class="unit-create card" aria-labelledby="unit-create-title" onSubmit={submit}>
      <h2 id="unit-create-title">{t('units.create.title', { barcode })}</h2>
      <p class="muted">{t('units.create.hint')}</p>
      <div class="unit-create-fields">
        <div>
          <label for="unit-create-location">{t('units.create.location')}</label>
          <input
            id="unit-create-location"
            required
            value={location.value}
            placeholder="AREA/AISLE/X/Y/Z"
            autoComplete="off"
            autoCapitalize="characters"
            spellcheck={false}
            onInput={(e) => (location.value = e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="unit-create-type">{t('units.create.type')}</label>
          <UnitTypeField id="unit-create-type" types={types.value} value={type} onChange={(v) => (chosenType.value = v)} />
        </div>
      </div>
      <FormError message={error.value} />
      <button type="submit" class="primary" disabled={busy.value || !type.trim()}>
        {t('units.create.submit')}
      </button>
    </form>
  );
}
