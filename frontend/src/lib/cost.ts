// What a session costs, when its agent reports it (ACP usage_update's
// cost: the session's running total; Go works out the turn's share,
// thread.Usage.turnCost), in the interface's language and the currency
// the agent named (Intl.NumberFormat, lib/format money).

import type { Usage } from '../api/types';
import { money } from './format';
import { m } from './i18n.svelte';

export interface CostText {
  /** The short form beside the usage meter. */
  chip: string;
  /** The long form (tooltip, screen readers), one line per figure. */
  title: string;
}

export function costText(usage: Pick<Usage, 'cost' | 'turnCost'> | null | undefined): CostText | null {
  const total = usage?.cost;
  if (!total || !Number.isFinite(total.amount)) return null;
  const all = money(total.amount, total.currency);
  const turn = usage.turnCost && Number.isFinite(usage.turnCost.amount) ? money(usage.turnCost.amount, usage.turnCost.currency) : '';
  return {
    chip: turn ? m.chat_usage_cost_chip({ turn, total: all }) : all,
    title: [turn ? m.chat_usage_cost_turn({ cost: turn }) : '', m.chat_usage_cost_session({ cost: all })].filter(Boolean).join('\n'),
  };
}
