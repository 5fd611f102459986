// The seam between a PLC protocol and the warehouse: the operations the adapter
// (plc/adapter.ts) offers, in warehouse terms — coordinates, barcodes, states and
// reasons, never telegrams. A protocol maps what its PLC says onto these and their
// results back onto its own answers: OSIP telegrams (plc/osip/warehouse/) and signal
// channels over OPC UA and Modbus (plc/signals/). What a report means for the warehouse
// is decided here once, whichever protocol carried it.
//
// The seam depends on nothing of the warehouse's modules: its types are its own, and
// the adapter maps the modules' results onto them. A protocol speaks only to this file.

/** A location group's state in one direction. */
export type GroupState = 'AVAILABLE' | 'NOT_AVAILABLE';

/** Why a booked arrival has no next location, as routing decided it. */
type NoNextHop = 'no-order' | 'no-route' | 'locked' | 'unknown-location';

/** The routing decision of an arrival, as a protocol may answer it. */
interface ArrivalDecision {
  /** `next` (a next location), `arrived` (at its order's target), or why there is no next hop. */
  kind: 'next' | 'arrived' | NoNextHop;
  /**
   * The decision as an 8-digit reason code (docs/plc.md, step 5): 00000000 next or
   * arrived, 00000001 no order, 00000002 no route, 00000003 next hop locked, 00000005
   * unknown location.
   */
  reasonCode: string;
}

/** Who reports, and the rules its configuration sets for what it reports. */
export interface Reporter {
  /** The channel's name: the actor `plc` with this name does the changes. */
  channel: string;
  /** A unit the warehouse does not know is created where it was seen, with this type; undefined: refused. */
  createUnknownUnitsAs?: string | undefined;
  /** Where a unit without a readable barcode is sent (a coordinate); undefined: it is held. */
  noReadLocation?: string | undefined;
  /** What the PLC said, as its protocol names it (`REQ_`, `LOCU 0012***1`): kept on the events it causes. */
  said?: string | undefined;
}

/**
 * A location as a PLC names it: by coordinate, by PLC code, or both (the coordinate
 * is tried first, the PLC code when no location has that coordinate).
 */
export interface LocationRef {
  coordinate?: string | undefined;
  plcCode?: string | undefined;
}

/** A transport unit as a PLC names it: its barcode, and the text as sent when that differs (a field's padding). */
export interface UnitRef {
  barcode: string;
  /** Tried when no unit has `barcode`: a unit may be stored with the padding. */
  asSent?: string | undefined;
}

/** What a report was about, as the adapter resolved it: kept in the protocol's log. */
export interface ReportFacts {
  /** The transport unit's barcode as stored. */
  barcode?: string;
  /** The location's coordinate. */
  location?: string;
  /** pKey of the transport order the report touched. */
  order?: string;
}

/** Why a unit report changed nothing. */
type RefusedReason = 'no-read' | 'unknown-location' | 'unknown-tu';

/** A unit seen at a location: booked there, and (an arrival) where it goes next. */
export interface UnitOutcome {
  /**
   * `ok`; a RefusedReason (nothing booked); or, for an arrival that was booked but has
   * no next location, the routing decision's kind (`no-order`, `no-route`, `locked`,
   * `unknown-location`).
   */
  outcome: 'ok' | RefusedReason | NoNextHop;
  /**
   * An arrival's next location (a coordinate) and the group its order aims at; undefined
   * when the unit stays: it has arrived, or `outcome` says why not. A no-read goes to
   * the reporter's noReadLocation when it has one.
   */
  next?: { location: string; group?: string | undefined } | undefined;
  /** The routing decision, when one was made (a protocol may answer with its reason code). */
  decision?: ArrivalDecision | undefined;
  facts?: ReportFacts;
}

/** A unit seen at a location, one of a batch (`unitSightings`). */
export interface UnitSighting {
  at: LocationRef | undefined;
  /** Undefined: the barcode could not be read. */
  unit: UnitRef | undefined;
  /** true: an arrival at a decision point, answered with the next location (unitArrived); false: a report (unitReport). */
  arrival: boolean;
  /** Reporter.said for this one. */
  said?: string | undefined;
}

/** One sighting of a batch that was not kept: its own failure (`error`), or the batch's commit failed (none kept, logged once). */
export interface SightingFailed {
  outcome: 'internal';
  error?: unknown;
}

/** A location's state as a PLC reports it; absent fields stay as they are. */
export interface LocationStateChange {
  /** The PLC's own state word for the location (0–9999). */
  plcState?: number | undefined;
  /** Locked for units coming in / going out. */
  inboundLocked?: boolean | undefined;
  outboundLocked?: boolean | undefined;
  /** The availability, in and out, of the location's group, or of `group` when named (and its groups below). */
  groupIn?: GroupState | undefined;
  groupOut?: GroupState | undefined;
  group?: string | undefined;
}

/** A group's availability for units in and out; absent: unchanged. Applies to its groups below as well. */
export interface GroupStateChange {
  in?: GroupState | undefined;
  out?: GroupState | undefined;
}

export interface StateOutcome {
  outcome: 'ok' | 'unknown-location' | 'unknown-group';
  /** The location's coordinate, when one was changed. */
  location?: string;
}

/**
 * The warehouse operations of the PLC adapter. Each one is a unit of work (all or
 * nothing, its events delivered after the commit), done as the reporter's channel
 * (actor `plc`); one that fails throws with nothing kept, and the protocol answers as
 * its rules say.
 */
/** A state a PLC reported, for stateChanges: a location's or a group's. */
export type StateReport =
  { at: LocationRef; change: LocationStateChange; said?: string | undefined } | { group: string; change: GroupStateChange; said?: string | undefined };

/** A location (its coordinate) or a location group (its name) that now exists under that name: created, or renamed to it. */
export type NamedPlace = { location: string } | { group: string };

export interface PlcOperations {
  /** A unit arrived at a decision point: it is booked there, its orders settle, and the answer is where it goes next or why not. */
  unitArrived(at: LocationRef | undefined, unit: UnitRef | undefined, from: Reporter): UnitOutcome;
  /** A unit was seen at a location on its way (no decision wanted): it is booked there and its orders settle. */
  unitReport(at: LocationRef | undefined, unit: UnitRef | undefined, from: Reporter): UnitOutcome;
  /**
   * Sightings that came together, in order: one result each, as if each had been
   * reported alone, but committed together (one commit for the lot, each in a
   * savepoint of its own, so one failing undoes only itself). Never throws.
   */
  unitSightings(sightings: readonly UnitSighting[], from: Reporter): (UnitOutcome | SightingFailed)[];
  locationState(at: LocationRef | undefined, change: LocationStateChange, from: Reporter): StateOutcome;
  groupState(group: string, change: GroupStateChange, from: Reporter): StateOutcome;
  /** The PLC reports an error code for a group (or for none): recorded as an event of the channel; with a group, its state changes too. */
  plcError(group: string | undefined, code: string, change: GroupStateChange, from: Reporter): StateOutcome;
  /**
   * Location and group states that came together, in order: one result each, as if each
   * had been reported alone (locationState, groupState), but committed together (one
   * commit for the lot, each in a savepoint of its own, so one failing undoes only
   * itself). Never throws.
   */
  stateChanges(reports: readonly StateReport[], from: Reporter): (StateOutcome | SightingFailed)[];
  /** Tells `listener`, after the commit, of each location or group that comes to exist under a name (created, or renamed to it); returns the unsubscribe function. */
  onNamed(listener: (place: NamedPlace) => void): () => void;
  /** The PLC is alive: the host's clock it is answered with. */
  heartbeat(channel: string): { time: Date };
  /**
   * Runs `answer` once everything committed so far is on disk, behind whatever asked
   * before it (at once when nothing waits): a PLC is answered only once what the answer
   * says can survive a power cut (docs/realtime.md, "Answers after the flush").
   */
  afterFlush(answer: () => void): void;
  /** Read-only: whether a location group of this name exists. */
  hasGroup(name: string): boolean;
  /** Read-only: a location's PLC code (a protocol that cannot carry the coordinate names it so). */
  plcCodeOf(location: string): string | undefined;
}

/** A unit standing at a channel's location got a new route: where it goes next. */
export interface RouteNotice {
  barcode: string;
  /** Where it stands (coordinate). */
  at: string;
  next: string;
  /** The group its order aims at. */
  group?: string | undefined;
}

/**
 * The channels as the adapter sees them, to tell a PLC of a unit's new route without
 * waiting for it to ask (docs/routing.md).
 */
export interface RouteListeners {
  /** The channel owning a location: the one that last reported it, else one configured for its group. */
  ownerOf(locationId: string, groupNames: readonly string[]): string | undefined;
  /** Tells the channel; nothing is queued when it cannot be told now (the PLC asks again). */
  routeChanged(channel: string, notice: RouteNotice): void;
}

/** The adapter as a protocol holds it: the operations, whom to tell of new routes, and its end. */
export interface PlcAdapter extends PlcOperations {
  /** Connects the channels, to tell them of new routes; until then none are told. */
  attach(listeners: RouteListeners): void;
  /** Stops listening to domain events. */
  close(): void;
}
