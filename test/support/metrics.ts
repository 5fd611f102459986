import { expect } from 'vitest';
import type { TestAppliance } from './appliance.ts';
import { until } from './warehouse.ts';

// GET /metrics as a scraper reads it: the sample lines by series.

export interface Scrape {
  text: string;
  /** The value of one series, `name{labels}` as the text writes it; undefined when absent. */
  value: (series: string) => number | undefined;
}

/** One scrape: the sample lines as `name{labels}` → value. */
export async function scrape(wms: TestAppliance): Promise<Scrape> {
  const reply = await wms.get('/metrics');
  expect(reply.status, reply.text).toBe(200);
  const samples = new Map<string, number>();
  for (const line of reply.text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return { text: reply.text, value: (series) => samples.get(series) };
}

/** Scrapes until the check holds for a scrape (a stream's open or close races the scrape). */
export async function scrapeUntil(wms: TestAppliance, check: (value: Scrape['value']) => boolean, what: string, timeoutMs?: number): Promise<void> {
  await until(async () => check((await scrape(wms)).value), what, timeoutMs);
}
