import { z } from 'zod';
import { quantitySchema, type Quantity } from '../../core/quantity.ts';
import { blankAsAbsent, name } from '../../core/schema.ts';
import { CORE_KEYS, DomainError } from '../../core/errors.ts';

// Request schemas of the receiving module (docs/receiving.md).
// Read-only fields a client echoes from a representation (`links`, `pKey`, `state`, …)
// and unknown fields are ignored.

/** The spec's message of every refused receiving request body: the details go to `obj`. */
const GENERIC_VALIDATION_MESSAGE = 'Generic validation error';

/** 400 `core.validation.error`, message 'Generic validation error', one `obj` entry per failing field ("field: why"). */
export const genericValidationError = (details: readonly string[]) =>
  new DomainError(400, CORE_KEYS.validationError, GENERIC_VALIDATION_MESSAGE, { obj: details });

/** More than nothing: an expected or a received amount. */
const positiveQuantity = quantitySchema.refine((q: Quantity) => q.base > 0, 'must be greater than 0');

const sku = name(128);

/** Free details of an order: any JSON object, bounded. */
const details = z
  .record(z.string().min(1).max(64), z.unknown())
  .refine((d) => Object.keys(d).length <= 50, 'at most 50 entries')
  .refine((d) => JSON.stringify(d).length <= 8192, 'at most 8192 characters as JSON');

const position = z.object({
  positionId: name(64),
  quantityExpected: positiveQuantity,
  product: z.object({ sku }),
});

/** `POST /v1/receiving-orders`. */
export const newReceivingOrder = z.object({
  orderId: name(64),
  details: details.nullable().optional(),
  positions: z.array(position).min(1, 'must not be empty').max(1000, 'at most 1000 positions'),
});
export type NewReceivingOrder = z.infer<typeof newReceivingOrder>;

/** One capture request: goods of a product received onto a load unit of a transport unit. */
export const captureRequest = z.object({
  quantityReceived: positiveQuantity,
  product: z.object({ sku }),
  barcode: name(64),
  loadUnitLabel: name(64).nullable().optional(),
});
export type CaptureRequest = z.infer<typeof captureRequest>;

const captureList = z.array(captureRequest).min(1, 'at least one capture request is required').max(1000, 'at most 1000 capture requests');

/** `?loadUnitType=`; empty is the same as absent. */
export const loadUnitTypeQuery = z.object({ loadUnitType: blankAsAbsent(64) });

/** A field path as clients write it: `positions[0].quantityExpected`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? String(part) : `.${String(part)}`;
  return out;
}

/** `positionId`s sent more than once, read from the raw body so they are named together with every other failing field. */
function duplicatePositionIds(body: unknown): string[] {
  const positions = (body as { positions?: unknown } | null | undefined)?.positions;
  if (!Array.isArray(positions)) return [];
  const seen = new Set<string>();
  const problems: string[] = [];
  positions.forEach((p, i) => {
    const id = (p as { positionId?: unknown } | null | undefined)?.positionId;
    if (typeof id !== 'string' || id.trim() === '') return;
    if (seen.has(id.trim())) problems.push(`positions[${i}].positionId: [${id.trim()}] appears more than once in the order`);
    seen.add(id.trim());
  });
  return problems;
}

/** `POST /v1/receiving-orders`: the order, or the generic validation error naming every failing field. */
export function parseNewOrder(body: unknown): NewReceivingOrder {
  const result = newReceivingOrder.safeParse(body);
  const problems = result.success ? [] : result.error.issues.map((issue) => `${fieldPath(issue.path) || 'body'}: ${issue.message}`);
  problems.push(...duplicatePositionIds(body));
  if (problems.length > 0 || !result.success) throw genericValidationError(problems);
  return result.data;
}

/** Parses with a schema; a failure is the generic validation error naming every failing field. */
export function parseOrRefuse<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw genericValidationError(result.error.issues.map((issue) => `${fieldPath(issue.path) || where}: ${issue.message}`));
}

/**
 * The body of a capture: one request or an array of them. Field paths of a single
 * request are named without the array index (`quantityReceived`), of an array with it
 * (`[1].quantityReceived`).
 */
export function parseCaptures(body: unknown): { requests: CaptureRequest[]; single: boolean } {
  const single = !Array.isArray(body);
  const result = captureList.safeParse(single ? [body] : body);
  if (result.success) return { requests: result.data, single };
  throw genericValidationError(
    result.error.issues.map((issue) => {
      const path = single ? issue.path.slice(1) : issue.path;
      return `${fieldPath(path) || 'body'}: ${issue.message}`;
    }),
  );
}
