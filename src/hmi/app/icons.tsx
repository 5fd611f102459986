// Icons drawn inline (24×24, stroked in the text colour): no icon font or image file
// to download, and they follow the theme. Decorative: the text beside them, or the
// aria-label of their button, says what they mean. Those for the screens to come are
// here already (map, orders, telegrams, trace, goods-in, tasks, commissioning).

const PATHS = {
  bell: 'M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0',
  map: 'M3 6l6-2 6 2 6-2v14l-6 2-6-2-6 2zM9 4v14M15 6v14',
  orders: 'M3 7h11v9H3zM14 10h4l3 3v3h-7M7 19a1.5 1.5 0 1 0 0-.1M17 19a1.5 1.5 0 1 0 0-.1',
  telegrams: 'M3 12h4l2-6 4 12 2-6h6',
  search: 'M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14zM16 16l5 5',
  goodsIn: 'M12 3v10M8 9l4 4 4-4M4 15v5h16v-5',
  tasks: 'M9 6h11M9 12h11M9 18h11M4 6l1 1 2-2M4 12l1 1 2-2M4 18l1 1 2-2',
  commissioning: 'M14 6a4 4 0 0 0-5 5l-6 6 2 2 6-6a4 4 0 0 0 5-5l-2 2-2-2z',
  check: 'M5 12l5 5 9-10',
  soundOn: 'M4 9h4l5-4v14l-5-4H4zM16 9a4 4 0 0 1 0 6M18 6a8 8 0 0 1 0 12',
  soundOff: 'M4 9h4l5-4v14l-5-4H4zM16 9l5 6M21 9l-5 6',
  theme: 'M12 3a9 9 0 1 0 0 18zM12 3a9 9 0 0 1 0 18',
  wallboard: 'M3 5h18v12H3zM8 21h8M12 17v4',
  logout: 'M14 4h5v16h-5M10 8l-4 4 4 4M6 12h10',
  language: 'M4 5h9M8 3v2M6 5c0 4 3 7 6 8M11 5c0 4-3 7-6 8M13 21l4-9 4 9M14.5 18h5',
  live: 'M12 12h.01M8.5 8.5a5 5 0 0 0 0 7M15.5 8.5a5 5 0 0 1 0 7M5.6 5.6a9 9 0 0 0 0 12.8M18.4 5.6a9 9 0 0 1 0 12.8',
  warning: 'M12 3l10 18H2zM12 10v5M12 18v.01',
  movements: 'M3 14h6v6H3zM15 4h6v6h-6zM6 14v-4a3 3 0 0 1 3-3h6M12 4l3 3-3 3',
  pair: 'M2 7h7v10H2zM15 7h7v10h-7zM9 12h6',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, class: className }: { name: IconName; class?: string }) {
  return (
    <svg class={`icon${className ? ` ${className}` : ''}`} viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} />
    </svg>
  );
}
