import type { PlanLink, PlanLocation } from './index.ts';

// The plan's patterns, glyphs and arrowheads. A state is told by colour AND by a
// pattern (and, zoomed in, a glyph), so that operators who do not tell red from green,
// and a black-and-white printout, still see which location is locked or faulty.

export type State = PlanLocation['state'];
export const STATES: readonly State[] = ['ok', 'error', 'inLocked', 'outLocked', 'locked', 'unavailable'];
export const LINK_KINDS: readonly PlanLink['kind'][] = ['hop', 'route', 'default-hop'];

/** Pattern lines per state (in a 6×6 tile); none for ok. */
const PATTERNS: Partial<Record<State, string>> = {
  error: 'M0 1.5h6M0 4.5h6',
  inLocked: 'M-1 1l2-2M0 6l6-6M5 7l2-2',
  outLocked: 'M-1 5l2 2M0 0l6 6M5 -1l2 2',
  locked: 'M0 6l6-6M0 0l6 6',
  unavailable: 'M2.5 3h1',
};

/** Glyphs in a 12×12 box: ! for an error, a padlock for locks, an arrow in or out, a dash for a group out of service. */
const GLYPHS: Partial<Record<State, string>> = {
  error: 'M6 1.5v6M6 10v.5',
  locked: 'M3 6h6v5H3zM4.5 6V4a1.5 1.5 0 0 1 3 0v2',
  inLocked: 'M1 6h6M4.5 3.5L7 6l-2.5 2.5M10 2v8',
  outLocked: 'M2 2v8M5 6h6M8.5 3.5L11 6l-2.5 2.5',
  unavailable: 'M2 6h8',
};

export const hasPattern = (state: State) => state in PATTERNS;

export function Glyph({ state, x, y }: { state: State; x: number; y: number }) {
  const d = GLYPHS[state];
  return d ? <path class="plan-glyph" d={d} transform={`translate(${x} ${y})`} /> : null;
}

/** The ids of one plan's defs: several plans (and their legends) may share a document. */
export interface DefIds {
  pattern: (state: State) => string;
  arrow: (kind: string) => string;
}

export const defIds = (prefix: string): DefIds => ({
  pattern: (state) => `${prefix}-p-${state}`,
  arrow: (kind) => `${prefix}-a-${kind}`,
});

export function PlanDefs({ ids }: { ids: DefIds }) {
  return (
    <defs>
      {STATES.filter(hasPattern).map((s) => (
        <pattern key={s} id={ids.pattern(s)} class={`plan-pattern p-${s}`} patternUnits="userSpaceOnUse" width="6" height="6">
          <path d={PATTERNS[s]} />
        </pattern>
      ))}
      {[...LINK_KINDS, 'highlighted'].map((k) => (
        <marker
          key={k}
          id={ids.arrow(k)}
          class={`plan-arrow plan-arrow-${k}`}
          viewBox="0 0 10 10"
          refX="10"
          refY="5"
          markerUnits="userSpaceOnUse"
          markerWidth="9"
          markerHeight="9"
          orient="auto"
        >
          <path d="M0 0L10 5L0 10z" />
        </marker>
      ))}
    </defs>
  );
}
