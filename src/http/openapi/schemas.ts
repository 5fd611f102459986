import { z } from 'zod';
import type { ApiSchema } from '../router.ts';

// Turns the schemas routes declare (zod or JSON Schema) into the JSON Schema of the
// API description. zod writes the schemas named with `meta({ id })` into `$defs` of
// each conversion; they are lifted into `components.schemas` and referenced from
// there, so every named representation appears once in the document.

export type JsonSchema = { [keyword: string]: unknown };

const COMPONENTS = '#/components/schemas/';

export const isZod = (schema: ApiSchema): schema is z.ZodType => '_zod' in schema;

export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  /**
   * The JSON Schema of a request body or query (`input`: what a client sends, before
   * defaults and transforms) or of a reply (`output`).
   */
  convert(schema: ApiSchema, io: 'input' | 'output'): JsonSchema {
    if (!isZod(schema)) return structuredClone(schema) as JsonSchema;
    // Unrepresentable parts (custom checks) are described as "anything": the server still checks them.
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    const names = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) names.set(id, this.nameFor(id, def, io));
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!node || typeof node !== 'object') return node;
      const out: JsonSchema = {};
      for (const [key, value] of Object.entries(node)) {
        out[key] =
          key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')
            ? COMPONENTS + names.get(value.slice('#/$defs/'.length))!
            : rewrite(value);
      }
      return out;
    };
    for (const [id, def] of Object.entries(defs)) this.schemas[names.get(id)!] = rewrite(def) as JsonSchema;
    return rewrite(json) as JsonSchema;
  }

  /**
   * The component name of a named schema: its id, or `<id>Input` when the request form
   * differs from the reply form already registered under the id.
   */
  private nameFor(id: string, def: JsonSchema, io: 'input' | 'output'): string {
    const candidates = io === 'input' ? [id, `${id}Input`] : [id];
    for (const name of candidates) {
      const existing = this.schemas[name];
      if (existing === undefined || sameShape(existing, def)) return name;
    }
    throw new Error(`API description: two different schemas are named ${id}`);
  }
}

/** Equal as JSON, references compared by the name they point to. */
function sameShape(registered: JsonSchema, def: JsonSchema): boolean {
  const normal = (node: unknown): string =>
    JSON.stringify(node, (key, value: unknown) =>
      key === '$ref' && typeof value === 'string' ? value.replace(COMPONENTS, '').replace('#/$defs/', '') : value,
    );
  return normal(registered) === normal(def);
}
