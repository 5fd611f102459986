import { z } from 'zod';
import type { RequestContext } from '../../../http/context.ts';
import { created, defined, indexRoute, link, noContent, ok, technical } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import { listQuery, listReply } from '../../../http/lists.ts';
import type { CatalogueEntry, CatalogueFields, CatalogueInput, createTypeCatalogue } from './service.ts';

interface CatalogueRoutesSpec<F extends CatalogueFields> {
  /** `location-type`: the vendor media type's resource and the grants' resource (plural). */
  resource: string;
  /** Words for the summaries: `location type`, `location`. */
  noun: string;
  usedBy: string;
  /** Query parameters that find an entry by name; the first with a link name is indexed. */
  nameQueries: { param: string; link?: string }[];
  create: z.ZodType<CatalogueInput<F>>;
  update: z.ZodType<CatalogueInput<F> & { pKey: string; ol?: number | undefined }>;
  /** The entry's representation, for the API description. */
  representation: z.ZodType;
}

/** The routes of a type catalogue: `/v1/<resource>s` with the link names `<resource>s-…`. */
export function catalogueRoutes<F extends CatalogueFields>(catalogue: ReturnType<typeof createTypeCatalogue<F>>, spec: CatalogueRoutesSpec<F>): Route[] {
  const plural = `${spec.resource}s`;
  const base = `/v1/${plural}`;
  const type = vendorType('common', spec.resource);
  const read = `${plural}:read`;
  const write = `${plural}:write`;
  const vo = (ctx: RequestContext, entry: CatalogueEntry<F>) => {
    const { pk: _pk, ol: _ol, createDt: _c, lastModifiedDt: _m, type: name, ...rest } = entry;
    return { ...technical(entry, [link(ctx, `${plural}-findbypkey`, `${base}/${entry.pk}`)]), type: name, ...defined(rest) };
  };

  const routes: Route[] = [
    {
      method: 'GET',
      path: `${base}/{pKey}`,
      grant: read,
      link: `${plural}-findbypkey`,
      vendorTypes: [type],
      responseSchema: spec.representation,
      summary: `A ${spec.noun} by its persistent key.`,
      handler: (ctx) => ok(vo(ctx, catalogue.byPKey(ctx.param('pKey')))),
    },
    ...spec.nameQueries.map(({ param, link: linkName }): Route => ({
      method: 'GET',
      path: base,
      query: [param],
      grant: read,
      vendorTypes: [type],
      ...(linkName ? { link: linkName } : {}),
      responseSchema: spec.representation,
      summary: `A ${spec.noun} by its name.`,
      handler: (ctx) => ok(vo(ctx, catalogue.byType(ctx.queryValue(param)))),
    })),
    {
      method: 'GET',
      path: base,
      grant: read,
      link: `${plural}-findall`,
      vendorTypes: [type],
      querySchema: listQuery,
      responseSchema: z.array(spec.representation),
      summary: `All ${spec.noun}s, by type.`,
      handler: (ctx) => listReply(ctx, catalogue.list(), (entry) => vo(ctx, entry)),
    },
    {
      method: 'POST',
      path: base,
      grant: write,
      link: `${plural}-create`,
      vendorTypes: [type],
      requestSchema: spec.create,
      responseSchema: spec.representation,
      status: 201,
      errors: [409],
      summary: `Create a ${spec.noun}.`,
      handler: (ctx) => {
        const entry = catalogue.create(ctx.body(spec.create));
        return created(ctx, `${base}/${entry.pk}`, vo(ctx, entry));
      },
    },
    {
      method: 'PUT',
      path: base,
      grant: write,
      link: `${plural}-update`,
      vendorTypes: [type],
      requestSchema: spec.update,
      responseSchema: spec.representation,
      errors: [404, 409],
      summary: `Replace a ${spec.noun}; the body carries its pKey (and ol to detect concurrent changes).`,
      handler: (ctx) => {
        const body = ctx.body(spec.update);
        return ok(vo(ctx, catalogue.update(body.pKey, body)));
      },
    },
    {
      method: 'DELETE',
      path: `${base}/{pKey}`,
      grant: write,
      link: `${plural}-delete`,
      status: 204,
      errors: [409],
      summary: `Delete a ${spec.noun} that no ${spec.usedBy} uses.`,
      handler: (ctx) => {
        catalogue.delete(ctx.param('pKey'));
        return noContent();
      },
    },
  ];
  return [indexRoute(`${base}/index`, read, routes, `Links of the ${spec.noun} operations.`), ...routes];
}
