import { ApiFailure, get } from '../../api.ts';
import { errorText, t } from '../../i18n.ts';

// A refused order in words that say what was wrong. Creating or redirecting an order,
// the appliance answers an unknown unit or target with a bare `not.found` that names
// neither (its contract for transport orders); an order that no longer exists comes
// with its key in `obj`. So on a bare `not.found` the page asks, in the order the
// appliance checks them, for each thing the form named — the unit, the target location,
// the target group — and says which one is missing. Only when those questions are
// refused too (a user who may not read units or locations) does it say it cannot tell
// which.

type During = 'create' | 'redirect' | 'change';

/** What the form named: the unit (on a create) and the targets (empty: not given). */
export interface Named {
  barcode?: string;
  location: string | null;
  group: string | null;
}

/** True when the thing is there; false on a 404; throws on any other answer (it cannot be told). */
const exists = (path: string, query: Record<string, string>) =>
  get(path, query).then(
    () => true,
    (err: unknown) => {
      if (err instanceof ApiFailure && err.status === 404) return false;
      throw err;
    },
  );

/** The first thing named that the appliance does not know, in words; undefined when all are known now. */
async function missing(named: Named): Promise<string | undefined> {
  if (named.barcode !== undefined && !(await exists('/v1/transport-units', { bk: named.barcode })))
    return t('orders.error.unknownUnit', { barcode: named.barcode });
  if (named.location !== null && !(await exists('/v1/locations', { locationId: named.location })))
    return t('orders.error.unknownLocation', { location: named.location });
  if (named.group !== null && !(await exists('/v1/location-groups', { name: named.group }))) return t('orders.error.unknownGroup', { group: named.group });
  return undefined;
}

/** The refusal of a create, a redirect or another change of an order, for the operator. */
export async function refusalText(err: unknown, during: During, named?: Named): Promise<string> {
  if (!(err instanceof ApiFailure) || during === 'change') return errorText(err);
  if (err.messageKey === 'core.validation.error') return t('orders.error.targets');
  if (err.messageKey !== 'not.found') return errorText(err);
  // The order itself is gone (its key in obj).
  if (err.obj.length > 0) return t('orders.error.orderGone');
  try {
    return (named && (await missing(named))) ?? t('orders.error.notFoundNow');
  } catch {
    return t(during === 'create' ? 'orders.error.createNotFound' : 'orders.error.targetNotFound');
  }
}
