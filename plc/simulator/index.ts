// The conveyor PLC simulator (docs/plc.md ("The simulator")): one import for tests of the appliance.

export { Conveyor, UnknownSegmentError, type ConveyorOptions, type Segment } from './conveyor.ts';
export * from './encoder.ts';
export { Deframer, frame, bcc, type FramingMode, type FramingOptions, type Terminator } from './framing.ts';
export type { TransportOptions } from './link.ts';
export * from './simulator.ts';
