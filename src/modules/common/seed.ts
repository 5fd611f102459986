import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { nowIso } from '../../core/time.ts';
import type { AccountStore } from './accounts/store.ts';
import type { LocationGroupService } from './location-groups/service.ts';
import type { LocationTypeService } from './location-types/service.ts';
import type { TransportUnitTypeService } from './transport-unit-types/service.ts';

// The default topology written at first start (an empty accounts table), so a fresh
// box answers useful data at once. Installers rename, extend or delete it over the
// API; it is never written again, so nothing they removed comes back.

const DEFAULT_ACCOUNT = { identifier: 'D', name: 'Default' };
const ROOT_GROUP = 'WAREHOUSE';

const DEFAULT_LOCATION_TYPES = [
  { type: 'CONVEYOR', description: 'Conveyor position (PLC controlled)' },
  { type: 'RACK', description: 'Rack slot for one transport unit' },
  { type: 'FLOOR', description: 'Floor or bulk storage area' },
  { type: 'WORKPLACE', description: 'Picking, packing or inspection station' },
  { type: 'DOCK', description: 'Goods-in or goods-out door' },
];

const DEFAULT_TRANSPORT_UNIT_TYPES = [
  { type: 'EURO', description: 'Euro pallet 1200 x 800 mm', length: 1200, width: 800, height: 1800, weightTare: 25, weightMax: 1500 },
  { type: 'INDUSTRIAL', description: 'Industrial pallet 1200 x 1000 mm', length: 1200, width: 1000, height: 1800, weightTare: 30, weightMax: 1500 },
  { type: 'TOTE', description: 'Plastic tote 600 x 400 mm', length: 600, width: 400, height: 320, weightTare: 2, weightMax: 50 },
];

interface SeedServices {
  locationGroups: LocationGroupService;
  locationTypes: LocationTypeService;
  transportUnitTypes: TransportUnitTypeService;
}

export function seedTopology(work: UnitOfWork, accounts: AccountStore, services: SeedServices): boolean {
  if (accounts.count() > 0) return false;
  work.run(() => {
    accounts.insert(DEFAULT_ACCOUNT.identifier, DEFAULT_ACCOUNT.name, true, nowIso());
    services.locationGroups.create({
      name: ROOT_GROUP,
      description: 'Root of the location group tree',
      operationMode: 'INFEED_AND_OUTFEED',
    });
    for (const type of DEFAULT_LOCATION_TYPES) services.locationTypes.create(type);
    for (const type of DEFAULT_TRANSPORT_UNIT_TYPES) services.transportUnitTypes.create(type);
  });
  return true;
}
