// turndown-plugin-gfm ships no types: the one export paste.ts uses.
declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export function gfm(service: TurndownService): void;
}
