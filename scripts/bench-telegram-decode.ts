// How long decoding a page of logged telegrams holds the event loop, which the PLC
// path shares: a page of 1,000 decoded at once (the baseline) against the longest run
// of 100 (what the unit trace and the telegram log do: a run, a turn of the loop, the
// next run; plc/channels.ts `withFields`). Both in the same process and the same round,
// warm, on a REQ_ and a RES_ as a PLC and the appliance write them.
//
//   npm run bench:decode [-- --rounds 7 --page 1000 --run 100]

import { numberArg } from './args.ts';
import { decode, osipOptions } from '../plc/osip/index.ts';

const ROUNDS = numberArg('--rounds', 7);
const PAGE = numberArg('--page', 1000);
const RUN = numberArg('--run', 100);

const TEXTS = [
  '###00160CNV01MFC__00042REQ_00000000000000004711CONV0001000200000000****************************20250312081500***************************************************',
  '###00160MFC__CNV0100043RES_00000000000000004711CONV0001000200000000STCK0001000300020001FGSTOCK*********************20250312081500*******************************',
];
const options = osipOptions();

function decodeMany(n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) if (!decode(TEXTS[i % TEXTS.length]!, options).ok) throw new Error('a bench telegram does not decode');
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function stats(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  return `min ${sorted[0]!.toFixed(2)}  median ${at(0.5)}  max ${sorted[sorted.length - 1]!.toFixed(2)} ms`;
}

decodeMany(20 * PAGE); // warm: the appliance decodes with warm code too
const whole: number[] = [];
const longestRun: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  whole.push(decodeMany(PAGE));
  let longest = 0;
  for (let done = 0; done < PAGE; done += RUN) longest = Math.max(longest, decodeMany(Math.min(RUN, PAGE - done)));
  longestRun.push(longest);
}
console.log(`${PAGE} telegrams at once:       ${stats(whole)}`);
console.log(`longest run of ${RUN}:          ${stats(longestRun)}`);
