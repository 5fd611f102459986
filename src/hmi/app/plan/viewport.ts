// The plan's view: a zoom factor `k` and a shift, screen = plan × k + (tx, ty). Pure
// arithmetic for the zoom buttons, the wheel, pinching and dragging.

export interface View {
  k: number;
  tx: number;
  ty: number;
}

/** Closest zoom: a box of 32 units is then 128 px. */
const MAX_K = 4;
const MARGIN = 16;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** Room kept free at the top and bottom of the frame (for the buttons and the legend over it). */
interface Insets {
  top: number;
  bottom: number;
}

/** The whole plan in the frame, enlarged at most `most` times (a handful of boxes stays box-sized). */
export function fitView(w: number, h: number, width: number, height: number, insets: Insets = { top: 0, bottom: 0 }, most = 1.5): View {
  const free = h - insets.top - insets.bottom;
  if (width <= 0 || height <= 0 || w <= 0 || free <= 0) return { k: 1, tx: MARGIN, ty: MARGIN + insets.top };
  const k = Math.min((w - 2 * MARGIN) / width, (free - 2 * MARGIN) / height, most);
  return { k, tx: (w - width * k) / 2, ty: insets.top + (free - height * k) / 2 };
}

/** The farthest zoom: the whole plan at half the frame. */
export const minK = (w: number, h: number, width: number, height: number) => Math.min(fitView(w, h, width, height).k / 2, 0.5);

/** Zoomed by `factor` about the screen point (px, py), which stays where it is. */
export function zoomAt(v: View, factor: number, px: number, py: number, lo: number): View {
  const k = clamp(v.k * factor, lo, MAX_K);
  const wx = (px - v.tx) / v.k;
  const wy = (py - v.ty) / v.k;
  return { k, tx: px - wx * k, ty: py - wy * k };
}

/** The view moved just enough that the box at (x, y) of side s is inside the frame. */
export function revealed(v: View, x: number, y: number, s: number, w: number, h: number): View {
  const left = x * v.k + v.tx;
  const top = y * v.k + v.ty;
  const size = s * v.k;
  if (left >= 0 && top >= 0 && left + size <= w && top + size <= h) return v;
  // Out of sight: centre it.
  return { k: v.k, tx: w / 2 - (x + s / 2) * v.k, ty: h / 2 - (y + s / 2) * v.k };
}
