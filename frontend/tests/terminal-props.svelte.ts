// Reactive props for mounting TerminalCard (runes need a .svelte.ts file).
import type { Terminal } from '../src/api/types';

export function terminalProps(init: { terminalId: string; terminal?: Terminal; live?: boolean; onstop?: () => void }) {
  const p = $state(init);
  return p;
}
