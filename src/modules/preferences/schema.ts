import { z } from 'zod';
import { name, ol, text } from '../../core/schema.ts';
import { validationError } from '../../core/errors.ts';

// Preferences (docs/preferences.md): four kinds told apart by
// `@class`, a `type` that the value must fit, and the value kept and returned as text.

export const SCOPES = ['APPLICATION', 'MODULE', 'ROLE', 'USER'] as const;
export type Scope = (typeof SCOPES)[number];

export const TYPES = ['FLOAT', 'INT', 'STRING', 'BOOL', 'OBJECT', 'JSON'] as const;
export type PreferenceType = (typeof TYPES)[number];

/** `@class` of each kind, as the spec names them. */
export const CLASS_OF: Record<Scope, string> = {
  APPLICATION: 'org.vendor.core.preferences.api.ApplicationPreferenceVO',
  MODULE: 'org.vendor.core.preferences.api.ModulePreferenceVO',
  ROLE: 'org.vendor.core.preferences.api.RolePreferenceVO',
  USER: 'org.vendor.core.preferences.api.UserPreferenceVO',
};

const CLASSES = SCOPES.map((s) => CLASS_OF[s]) as [string, ...string[]];

export const scopeOfClass = (className: string): Scope => SCOPES.find((s) => CLASS_OF[s] === className)!;

/** Longest value text we keep (the body limit bounds the request as a whole). */
const MAX_VALUE_LENGTH = 65_536;

type JsonValue = string | number | boolean | unknown[] | Record<string, unknown>;

const value = z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
  error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string, number, boolean, object or array'),
});

/** `POST /v1/preferences`; read-only fields a client sends back (`links`, `createDt`, …) are ignored. */
export const newPreference = z.object({
  '@class': z.enum(CLASSES, { error: `must be one of ${CLASSES.join(', ')}` }),
  key: name(),
  owner: name().nullable().optional(),
  description: text().nullable().optional(),
  value,
  groupName: name().nullable().optional(),
  type: z.enum(TYPES, { error: `must be one of ${TYPES.join(', ')}` }).optional(),
});
export type NewPreference = z.infer<typeof newPreference>;

/** `PUT /v1/preferences/{pKey}`: the whole preference; `pKey`, when sent, must be the path's. */
export const preferenceUpdate = newPreference.extend({ pKey: name().optional(), ol: ol.optional() });
export type PreferenceUpdate = z.infer<typeof preferenceUpdate>;

export const scope = z.enum(SCOPES, { error: `must be one of ${SCOPES.join(', ')}` });

/** `?strict=` of the create: `true` (default) or `false`. */
export const createQuery = z.object({
  strict: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
});

/** An owner given in a query; empty means none (a client filling the index template with nothing). */
const queryOwner = z
  .string()
  .trim()
  .max(255)
  .optional()
  .transform((v) => v || undefined);

export const scopeQuery = z.object({ scope });
export const scopeUserQuery = z.object({ scope, user: name() });
export const userQuery = z.object({ user: name() });
export const userKeyQuery = z.object({ user: name(), key: name() });
export const ownerQuery = (param: 'role' | 'module') => z.object({ [param]: name() });
export const ownerKeyQuery = (param: 'role' | 'module') => z.object({ [param]: name(), key: name() });
export const groupQuery = z.object({ scope, name: name(), owner: queryOwner });

/** When a create names no `type`: the type of the JSON value sent. */
export function inferType(v: JsonValue): PreferenceType {
  if (typeof v === 'boolean') return 'BOOL';
  if (typeof v === 'number') return Number.isSafeInteger(v) ? 'INT' : 'FLOAT';
  if (Array.isArray(v)) return 'JSON';
  if (typeof v === 'object') return 'OBJECT';
  return 'STRING';
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const refuse = (reason: string) => validationError(`Validation failed: value: ${reason}`);

function parseJson(textValue: string): unknown {
  try {
    return JSON.parse(textValue);
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The value as the text we store and return, after checking that it fits the type.
 * Each type takes its JSON form and its text form, so a preference read (value as
 * text) can be sent back unchanged.
 */
export function valueText(type: PreferenceType, v: JsonValue): string {
  const out = textFor(type, v);
  if (out.length > MAX_VALUE_LENGTH) throw refuse(`must be at most ${MAX_VALUE_LENGTH} characters`);
  return out;
}

function textFor(type: PreferenceType, v: JsonValue): string {
  switch (type) {
    case 'BOOL':
      if (typeof v === 'boolean') return String(v);
      if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase();
      throw refuse('must be a boolean (true, false, "true" or "false") for type BOOL');
    case 'INT':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
      if (typeof v === 'string' && INTEGER.test(v.trim()) && Number.isSafeInteger(Number(v))) return String(Number(v));
      throw refuse(`must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} for type INT`);
    case 'FLOAT':
      if (typeof v === 'number') return String(v);
      if (typeof v === 'string' && DECIMAL.test(v.trim()) && Number.isFinite(Number(v))) return String(Number(v));
      throw refuse('must be a number for type FLOAT');
    case 'STRING':
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
      throw refuse('must be a string (or a number or boolean, kept as its text) for type STRING');
    case 'OBJECT':
      if (isObject(v)) return JSON.stringify(v);
      if (typeof v === 'string' && isObject(parseJson(v))) return v;
      throw refuse('must be a JSON object, or the text of one, for type OBJECT');
    case 'JSON':
      if (typeof v !== 'string') return JSON.stringify(v);
      if (parseJson(v) !== undefined) return v;
      throw refuse('must be valid JSON text, or a JSON object or array, for type JSON');
  }
}
