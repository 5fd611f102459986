// The conveyor PLC simulator (docs/plc.md ("The simulator")): one import for tests of the appliance.

export { Conveyor, UnknownSegmentError, type ConveyorOptions, type Segment } from './conveyor.ts';
export * from './encoder.ts';
export { Deframer, frame, bcc, type FramingMode, type FramingOptions, type Terminator } from './framing.ts';
export type { TransportOptions } from './link.ts';
export * from './simulator.ts';
// Signal mode (OPC UA, Modbus): the conveyor's signals served for a signal channel.
export { Layout, LayoutError, SIGNAL_PROTOCOLS, channelEntry, formatEntry, type Place, type Signal, type SignalProtocol } from './signals/layout.ts';
export { PlcMemory, type Write } from './signals/memory.ts';
export { ConveyorDriver, type Arrival } from './signals/driver.ts';
export { SignalSimulator, type SignalSimulatorOptions } from './signals/simulator.ts';
