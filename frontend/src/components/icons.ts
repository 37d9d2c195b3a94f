// Stroke icons on a 24×24 grid (drawn for mnote), as SVG path data.

const circle = (cx: number, cy: number, r: number) =>
  // i18n-ignore: SVG path data
  `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0`;

export const ICONS = {
  plus: 'M12 5v14M5 12h14',
  search: circle(11, 11, 7) + 'M20 20l-3.6-3.6',
  trash: 'M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3',
  pencil: 'M4 20h4L19 9l-4-4L4 16v4zM13.5 6.5l4 4',
  file: 'M14 3H6v18h12V7l-4-4zM14 3v4h4',
  terminal: 'M4 17l6-5-6-5M12 19h8',
  globe: circle(12, 12, 9) + 'M3 12h18M12 3c2.5 2.7 3.8 5.7 3.8 9s-1.3 6.3-3.8 9M12 3C9.5 5.7 8.2 8.7 8.2 12s1.3 6.3 3.8 9',
  bulb: 'M9 18h6M10 21h4M12 3a6 6 0 0 0-4 10.5c.7.7 1 1.5 1 2.5h6c0-1 .3-1.8 1-2.5A6 6 0 0 0 12 3z',
  move: 'M5 12h14M15 8l4 4-4 4M9 8l-4 4 4 4',
  gear: circle(12, 12, 3) + 'M12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9L7 7M17 17l2.1 2.1M4.9 19.1L7 17M17 7l2.1-2.1',
  toggle: 'M8 7h8a5 5 0 0 1 0 10H8A5 5 0 0 1 8 7z' + circle(8, 12, 2.5),
  check: 'M5 12.5l4.5 4.5L19 7',
  x: 'M6 6l12 12M18 6L6 18',
  chevronRight: 'M9 6l6 6-6 6',
  chevronLeft: 'M15 6l-6 6 6 6',
  chevronDown: 'M6 9l6 6 6-6',
  stop: 'M7 7h10v10H7z',
  send: 'M12 19V5M5.5 11.5L12 5l6.5 6.5',
  copy: 'M9 9h11v11H9zM5 15H4V4h11v1',
  alert: 'M12 3.5L22 20H2L12 3.5zM12 10v4.5M12 17.5v.01',
  info: circle(12, 12, 9) + 'M12 11v5.5M12 7.8v.01',
  panel: 'M3 4h18v16H3zM9 4v16',
  book: 'M5 4.5A1.5 1.5 0 0 1 6.5 3H19v15H6.5A1.5 1.5 0 0 0 5 19.5v-15zM5 19.5A1.5 1.5 0 0 0 6.5 21H19v-3',
  refresh: 'M20 11a8 8 0 1 0-2.3 5.7M20 4.5V11h-6.5',
  key: circle(8, 15, 4) + 'M11 12l9-9M16.5 6.5l3 3',
  dot: circle(12, 12, 2),
  circle: circle(12, 12, 7),
  agent: 'M5 8h14v11H5zM12 4v4M9 13v1M15 13v1M2 12v4M22 12v4',
  arrowDown: 'M12 5v14M5.5 12.5L12 19l6.5-6.5',
  list: 'M9 6h11M9 12h11M9 18h11M4.5 6h.01M4.5 12h.01M4.5 18h.01',
  folder: 'M3 6.5A1.5 1.5 0 0 1 4.5 5H9l2 2h8.5A1.5 1.5 0 0 1 21 8.5v9a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5v-11z',
  folderOpen: 'M3 17.5v-11A1.5 1.5 0 0 1 4.5 5H9l2 2h7.5A1.5 1.5 0 0 1 20 8.5V10M3 17.5L6 11h16l-3 8H4.5A1.5 1.5 0 0 1 3 17.5z',
  fileText: 'M14 3H6v18h12V7l-4-4zM14 3v4h4M9 12h6M9 16h6',
  filePlus: 'M14 3H6v18h12V7l-4-4zM14 3v4h4M12 11v6M9 14h6',
  folderPlus: 'M3 6.5A1.5 1.5 0 0 1 4.5 5H9l2 2h8.5A1.5 1.5 0 0 1 21 8.5v9a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5v-11zM12 10v6M9 13h6',
  eye: 'M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z' + circle(12, 12, 3),
  code: 'M8 7l-5 5 5 5M16 7l5 5-5 5',
  more: 'M5 12h.01M12 12h.01M19 12h.01',
  undo: 'M9 14L4 9l5-5M4 9h10.5a5.5 5.5 0 0 1 0 11H11',
  diff: 'M12 3v6M9 6h6M9 15h6M5 21h14M5 3h4M15 3h4',
  at: circle(12, 12, 4) + 'M16 8v5a3 3 0 0 0 6 0v-1a10 10 0 1 0-4 8',
  sidebar: 'M3 4h18v16H3zM15 4v16',
  columns: 'M3 4h18v16H3zM12 4v16',
  image: 'M4 5h16v14H4zM4 16l5-5 4 4 3-3 4 4' + circle(15.5, 9, 1.5),
  calendar: 'M4 6h16v14H4zM4 10h16M8 3v5M16 3v5',
  hash: 'M5 9h15M4 15h15M10 4L8 20M16 4l-2 16',
  template: 'M4 4h16v5H4zM4 13h7v7H4zM15 13h5M15 17h5',
  fork: circle(6, 5, 2) + circle(6, 19, 2) + circle(18, 7, 2) + 'M6 7v10M18 9c0 5-8 4-11.2 8.4',
} as const;

export type IconName = keyof typeof ICONS;

/** Icon for an ACP tool kind. */
export function toolIcon(kind: string | undefined): IconName {
  switch (kind) {
    case 'read':
      return 'file';
    case 'edit':
      return 'pencil';
    case 'delete':
      return 'trash';
    case 'move':
      return 'move';
    case 'search':
      return 'search';
    case 'execute':
      return 'terminal';
    case 'think':
      return 'bulb';
    case 'fetch':
      return 'globe';
    case 'switch_mode':
      return 'toggle';
    default:
      return 'gear';
  }
}
