import { addMessages } from '../i18n.ts';
import { planMessages } from './messages.ts';

// The conveyor plan, shared by the map and the commissioning screens: the locations
// drawn from their coordinates and groups, the routes and hops between them, and the
// hook that reads and follows what the plan shows. This file is the contract between
// those screens; the parts are in the files beside it.

addMessages(planMessages);

export interface PlanLocation {
  /** The location's coordinate AREA/AISLE/X/Y/Z (its id in the API). */
  id: string;
  /** Name of its location group, if any. */
  group?: string;
  /** Drawn colour: ok · error (plcState ≠ 0) · inLocked · outLocked · locked (both) · unavailable (group not available). */
  state: 'ok' | 'error' | 'inLocked' | 'outLocked' | 'locked' | 'unavailable';
  /** Barcodes of the transport units standing on it. */
  units?: readonly string[];
}

export interface PlanLink {
  from: string;
  to: string;
  kind: 'route' | 'hop' | 'default-hop';
  highlighted?: boolean;
  /** The name of the route a route or hop link belongs to. */
  route?: string;
  /** Of a disabled route: drawn faintly (it takes no part in routing). */
  disabled?: boolean;
}

export interface ConveyorPlanProps {
  locations: readonly PlanLocation[];
  links?: readonly PlanLink[];
  selected?: string;
  onSelect?: (id: string) => void;
  /** When given, the user can draw a link: select a location, then choose "link to…" and tap/click the second one (also by keyboard). */
  onLinkDrawn?: (from: string, to: string) => void;
  /** Only this group's locations (and links between them). */
  group?: string;
}

// ConveyorPlan(props: ConveyorPlanProps & PlanOptions): JSX.Element
export { ConveyorPlan, type PlanOptions } from './conveyor-plan.tsx';
// usePlanData(): { locations, links, groups, loading, reload() } and a little more (PlanData)
export { usePlanData, type PlanData } from './plan-data.ts';
