import type { Signal } from '@preact/signals';
import type { RefObject } from 'preact';
import { useRef } from 'preact/hooks';
import { zoomAt, type View } from './viewport.ts';

// The plan's pointer gestures, for mouse, pen and fingers alike (pointer events): a
// drag pans, two fingers pinch to zoom (and pan with their middle), the wheel zooms
// about the pointer, and a press that did not move is a tap on the location under it.

/** Movement below this is still a tap (a finger is never quite still). */
const DRAG_PX = 6;

interface Point {
  x: number;
  y: number;
}

interface Press extends Point {
  view: View;
  target: string | undefined;
  moved: boolean;
}

interface GestureOptions {
  /** The farthest zoom. */
  lowest: () => number;
  /** The user moved the view. */
  onMove: () => void;
  /** A tap on a location. */
  onTap: (id: string) => void;
}

export function useGestures(svg: RefObject<SVGSVGElement | null>, view: Signal<View>, { lowest, onMove, onTap }: GestureOptions) {
  const pointers = useRef(new Map<number, Point>()).current;
  const press = useRef<Press | undefined>(undefined);
  const pinch = useRef<{ dist: number; mid: Point; view: View } | undefined>(undefined);

  const local = (e: PointerEvent | WheelEvent): Point => {
    const r = svg.current!.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const spread = () => {
    const [a, b] = [...pointers.values()] as [Point, Point];
    return { dist: Math.hypot(a.x - b.x, a.y - b.y) || 1, mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } };
  };

  const onPointerDown = (e: PointerEvent) => {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    pointers.set(e.pointerId, local(e));
    // Keeps the gesture when the pointer leaves the plan mid-drag.
    svg.current?.setPointerCapture?.(e.pointerId);
    if (pointers.size === 1) {
      const target = (e.target as Element).closest?.('[data-id]')?.getAttribute('data-id') ?? undefined;
      press.current = { ...local(e), view: view.value, target, moved: false };
    } else if (pointers.size === 2) {
      pinch.current = { ...spread(), view: view.value };
      if (press.current) press.current.moved = true;
    }
  };

  const onPointerMove = (e: PointerEvent) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.set(e.pointerId, local(e));
    if (pointers.size >= 2 && pinch.current) {
      const now = spread();
      const p = pinch.current;
      const zoomed = zoomAt(p.view, now.dist / p.dist, p.mid.x, p.mid.y, lowest());
      onMove();
      view.value = { k: zoomed.k, tx: zoomed.tx + now.mid.x - p.mid.x, ty: zoomed.ty + now.mid.y - p.mid.y };
      return;
    }
    const p = press.current;
    if (!p) return;
    const at = local(e);
    const dx = at.x - p.x;
    const dy = at.y - p.y;
    if (!p.moved && Math.hypot(dx, dy) < DRAG_PX) return;
    p.moved = true;
    onMove();
    view.value = { k: p.view.k, tx: p.view.tx + dx, ty: p.view.ty + dy };
  };

  const onPointerEnd = (e: PointerEvent) => {
    if (!pointers.delete(e.pointerId)) return;
    const p = press.current;
    if (pointers.size === 0) {
      press.current = undefined;
      pinch.current = undefined;
      if (p && !p.moved && p.target && e.type === 'pointerup') onTap(p.target);
    } else if (pointers.size === 1) {
      // The pinch is over; the finger left pans on from where it is.
      pinch.current = undefined;
      const [rest] = [...pointers.values()] as [Point];
      press.current = { ...rest, view: view.value, target: undefined, moved: true };
    }
  };

  const onWheel = (e: WheelEvent) => {
    e.preventDefault();
    const at = local(e);
    onMove();
    // Lines (a mouse wheel on some systems) count more than pixels (touchpads).
    view.value = zoomAt(view.value, Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015)), at.x, at.y, lowest());
  };

  return { onPointerDown, onPointerMove, onPointerEnd, onWheel };
}
