import type { ComponentType } from 'preact';
import type { Messages } from './i18n.ts';
import type { IconName } from './icons.tsx';
import { alarmsMessages } from './screens/alarms/messages.ts';

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
];
