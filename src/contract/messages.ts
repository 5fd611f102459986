import type { CORE_KEYS } from '../core/errors.ts';
import type { ALARM_KEYS } from '../modules/alarms/errors.ts';
import type { COMMON_KEYS } from '../modules/common/errors.ts';
import type { HA_KEYS } from '../modules/ha/errors.ts';
import type { INVENTORY_KEYS } from '../modules/inventory/errors.ts';
import type { MOVEMENT_KEYS } from '../modules/movements/errors.ts';
import type { PREFERENCE_KEYS } from '../modules/preferences/errors.ts';
import type { RECEIVING_KEYS } from '../modules/receiving/errors.ts';
import type { SHIPPING_KEYS } from '../modules/shipping/errors.ts';
import type { TASK_KEYS } from '../modules/tasks/errors.ts';
import type { TRANSPORT_ORDER_KEYS } from '../modules/transport-orders/errors.ts';
import type { USER_KEYS } from '../modules/users/errors.ts';

// The message keys an API-declined body can carry (`messageKey`; docs/message-keys.md),
// as the catalogues the code throws them from define them: core's and each module's
// `errors.ts`. A key renamed or removed there fails `tsc -p src/hmi/app` wherever the
// HMI names it. Import with `import type` only: the HMI's bundle takes nothing of the
// server. test/message-keys.test.ts checks that every catalogue is joined here.

type KeyOf<Catalogue> = Catalogue[keyof Catalogue];

/** Every message key of the appliance (the dotted family; `api.messageKeys` may rename a few on the wire). */
export type MessageKey =
  | KeyOf<typeof CORE_KEYS>
  | KeyOf<typeof ALARM_KEYS>
  | KeyOf<typeof COMMON_KEYS>
  | KeyOf<typeof HA_KEYS>
  | KeyOf<typeof INVENTORY_KEYS>
  | KeyOf<typeof MOVEMENT_KEYS>
  | KeyOf<typeof PREFERENCE_KEYS>
  | KeyOf<typeof RECEIVING_KEYS>
  | KeyOf<typeof SHIPPING_KEYS>
  | KeyOf<typeof TASK_KEYS>
  | KeyOf<typeof TRANSPORT_ORDER_KEYS>
  | KeyOf<typeof USER_KEYS>;
