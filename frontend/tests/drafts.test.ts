// Unsent prompts kept per session in localStorage (lib/prefs).
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_DRAFTS, MAX_DRAFT_CHARS, readDraft, writeDraft } from '../src/lib/prefs';

beforeEach(() => localStorage.clear());

describe('drafts', () => {
  it('keeps one per session and forgets an empty one', () => {
    writeDraft('s1', 'half a thought');
    writeDraft('', 'for a new session');
    expect(readDraft('s1')).toBe('half a thought');
    expect(readDraft('')).toBe('for a new session');
    expect(readDraft('s2')).toBe('');
    writeDraft('s1', '');
    expect(readDraft('s1')).toBe('');
    expect(localStorage.getItem('mnote.draft.s1')).toBeNull();
  });

  it('keeps the latest sessions only, each bounded', () => {
    for (let i = 0; i < MAX_DRAFTS + 5; i++) writeDraft(`s${i}`, `draft ${i}`);
    expect(readDraft('s0')).toBe('');
    expect(readDraft('s4')).toBe('');
    expect(readDraft('s5')).toBe('draft 5');
    expect(readDraft(`s${MAX_DRAFTS + 4}`)).toBe(`draft ${MAX_DRAFTS + 4}`);
    writeDraft('big', 'x'.repeat(MAX_DRAFT_CHARS + 10));
    expect(readDraft('big')).toHaveLength(MAX_DRAFT_CHARS);
  });

  it('survives a broken index', () => {
    localStorage.setItem('mnote.drafts', '{not json');
    writeDraft('s1', 'still kept');
    expect(readDraft('s1')).toBe('still kept');
  });
});
