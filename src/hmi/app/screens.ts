import type { ComponentType } from 'preact';
import type { Messages } from './i18n.ts';
import type { IconName } from './icons.tsx';
import { alarmsMessages } from './screens/alarms/messages.ts';
import { telegramsMessages } from './screens/telegrams/messages.ts';
import { goodsInMessages } from './screens/goods-in/messages.ts';
import { mapMessages } from './screens/map/messages.ts';
import { commissioningMessages } from './screens/commissioning/messages.ts';
import { ordersMessages } from './screens/orders/messages.ts';
import { unitsMessages } from './screens/units/messages.ts';
import { movementsMessages } from './screens/movements/messages.ts';
import { tasksMessages } from './screens/tasks/messages.ts';

// The screens of the HMI: navigation, routing and the grant check all come from this
// table. A screen is a folder under screens/ with its component (loaded when first
// shown, as a file of its own) and its texts; adding one is adding its row here
// (docs/hmi.md, "Adding a screen").

export interface Screen {
  /** Its address: `#/<path>`. Letters, digits and dashes. */
  path: string;
  /** Key of its name in the navigation and the tab title (in `messages`). */
  title: string;
  /** Its navigation icon (icons.tsx). */
  icon: IconName;
  /** The grant needed to see it at all; actions inside check their own with can(). */
  grant: string;
  /** Its texts in every language, keyed under its own prefix. */
  messages: Messages;
  /** Its component, loaded when the screen is first shown. */
  load: () => Promise<{ default: ComponentType<ScreenProps> }>;
}

export interface ScreenProps {
  /** What the address holds after the screen's path (`#/alarms/journal` → `journal`). */
  rest: string;
}

export const SCREENS: readonly Screen[] = [
  { path: 'alarms', title: 'alarms.title', icon: 'bell', grant: 'alarms:read', messages: alarmsMessages, load: () => import('./screens/alarms/alarms.tsx') },
  { path: 'map', title: 'map.title', icon: 'map', grant: 'locations:read', messages: mapMessages, load: () => import('./screens/map/map.tsx') },
  {
    path: 'orders',
    title: 'orders.title',
    icon: 'orders',
    grant: 'transport-orders:read',
    messages: ordersMessages,
    load: () => import('./screens/orders/orders.tsx'),
  },
  {
    path: 'telegrams',
    title: 'telegrams.title',
    icon: 'telegrams',
    grant: 'plc-channels:read',
    messages: telegramsMessages,
    load: () => import('./screens/telegrams/telegrams.tsx'),
  },
  {
    path: 'units',
    title: 'units.title',
    icon: 'search',
    grant: 'transport-units:read',
    messages: unitsMessages,
    load: () => import('./screens/units/units.tsx'),
  },
  {
    path: 'goods-in',
    title: 'goodsIn.title',
    icon: 'goodsIn',
    grant: 'receiving-orders:read',
    messages: goodsInMessages,
    load: () => import('./screens/goods-in/goods-in.tsx'),
  },
  {
    path: 'movements',
    title: 'movements.title',
    icon: 'movements',
    grant: 'movements:read',
    messages: movementsMessages,
    load: () => import('./screens/movements/movements.tsx'),
  },
  { path: 'tasks', title: 'tasks.title', icon: 'tasks', grant: 'tasks:read', messages: tasksMessages, load: () => import('./screens/tasks/tasks.tsx') },
  {
    path: 'commissioning',
    title: 'commissioning.title',
    icon: 'commissioning',
    grant: 'routes:read',
    messages: commissioningMessages,
    load: () => import('./screens/commissioning/commissioning.tsx'),
  },
];
