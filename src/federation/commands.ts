import { validationError } from '../core/errors.ts';
import type { InternalReply, InternalRequest } from '../http/invoke.ts';

// The commands the hub may send (docs/federation.md, "Commands"), each the REST request
// it stands for: a command runs the very route a client's request would, so its rules,
// validation and reply are the API's. Subject `wms.<site>.commands.<kind>`, body a JSON
// object with a `commandId` and the request's fields.

const COMMAND_KINDS = ['create-transport-order', 'create-receiving-order', 'create-shipping-order', 'save-product', 'cancel-order'] as const;
type CommandKind = (typeof COMMAND_KINDS)[number];

/** A commandId names the result's subject: one NATS subject token, short. */
const COMMAND_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A command as it came, checked only as far as needed to name it and its answer. */
export interface Command {
  commandId: string;
  kind: CommandKind;
  fields: Record<string, unknown>;
}

/** Why a message is not a command: no answer can name it otherwise. */
export class MalformedCommand extends Error {
  /** The commandId, when the message had a usable one. */
  readonly commandId: string | undefined;
  readonly kind: string;
  constructor(message: string, commandId: string | undefined, kind: string) {
    super(message);
    this.commandId = commandId;
    this.kind = kind;
  }
}

const isKind = (kind: string): kind is CommandKind => (COMMAND_KINDS as readonly string[]).includes(kind);

/** The command of a message on `wms.<site>.commands.<kind>`; throws MalformedCommand. */
export function parseCommand(kind: string, payload: Uint8Array): Command {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch (err) {
    throw new MalformedCommand(`The command is not JSON: ${(err as Error).message}`, undefined, kind);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MalformedCommand('The command must be a JSON object with a commandId', undefined, kind);
  }
  const { commandId, ...fields } = value as Record<string, unknown>;
  if (typeof commandId !== 'string' || !COMMAND_ID.test(commandId)) {
    throw new MalformedCommand('commandId: required, 1 to 64 letters, digits, _ or - (it names the result subject)', undefined, kind);
  }
  if (!isKind(kind)) throw new MalformedCommand(`Unknown command ${kind}; known: ${COMMAND_KINDS.join(', ')}`, commandId, kind);
  return { commandId, kind, fields };
}

/** Runs one internal request; the command's steps are built on it. */
type Call = (request: InternalRequest) => InternalReply;

const ORDER_PATHS = { transport: '/v1/transport-orders', receiving: '/v1/receiving-orders' } as const;

/** Declined before any route runs: the error a route gives for a bad field. */
const refused = (message: string): never => {
  throw validationError(`Validation failed: ${message}`);
};

/**
 * Runs a command's requests and returns the reply that answers it; a command refused
 * before any route runs throws the DomainError a route would. Runs inside the caller's
 * unit of work: a reply that is not a success undoes whatever ran before it.
 */
export function execute(command: Command, call: Call): InternalReply {
  const { fields } = command;
  switch (command.kind) {
    case 'create-transport-order':
      return call({ method: 'POST', path: '/v1/transport-orders', body: fields });
    case 'create-receiving-order':
      return call({ method: 'POST', path: '/v1/receiving-orders', body: fields });
    case 'create-shipping-order':
      return call({ method: 'POST', path: '/v1/shipping-orders', body: fields });
    case 'save-product':
      return saveProduct(fields, call);
    case 'cancel-order':
      return cancelOrder(fields, call);
  }
}

/** Creates the product of its sku, or replaces the one that has it (its pKey and version taken over). */
function saveProduct(fields: Record<string, unknown>, call: Call): InternalReply {
  if (typeof fields.sku !== 'string' || fields.sku.trim() === '') return refused('sku: the product to create or update is named by its sku');
  const query = new URLSearchParams({ sku: fields.sku });
  const existing = call({ method: 'GET', path: '/v1/products', query });
  if (existing.status === 404) {
    const made = call({ method: 'POST', path: '/v1/products', body: fields });
    // POST answers an array; the command made one product.
    return made.status === 201 && Array.isArray(made.body) ? { ...made, body: made.body[0] } : made;
  }
  if (existing.status !== 200) return existing;
  const current = existing.body as Record<string, unknown>;
  return call({ method: 'PUT', path: '/v1/products', body: { ...fields, pKey: current.pKey, ol: current.ol } });
}

function cancelOrder(fields: Record<string, unknown>, call: Call): InternalReply {
  const { order } = fields;
  if (order !== 'transport' && order !== 'receiving') {
    return refused('order: transport or receiving (shipping orders have no cancellation; change their state with the API)');
  }
  let pKey = fields.pKey;
  if (pKey === undefined && order === 'receiving' && typeof fields.orderId === 'string') {
    const found = call({ method: 'GET', path: ORDER_PATHS.receiving, query: new URLSearchParams({ orderId: fields.orderId }) });
    if (found.status !== 200) return found;
    pKey = (found.body as { pKey?: unknown }).pKey;
  }
  if (typeof pKey !== 'string' || pKey === '') {
    return refused(order === 'receiving' ? 'pKey or orderId: the receiving order to cancel' : 'pKey: the transport order to cancel');
  }
  const reply = call({ method: 'DELETE', path: `${ORDER_PATHS[order]}/${encodeURIComponent(pKey)}` });
  return reply.status === 204 ? { ...reply, body: { order, pKey, state: 'CANCELED' } } : reply;
}
