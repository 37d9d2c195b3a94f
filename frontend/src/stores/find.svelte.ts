// Finding and starting notes: Quick Open (its list of notes with their
// titles, matched by lib/quickopen.ts), the folder's tags (notes.tags) and
// a click that searches them, the daily note (Alt+D: today's note in the
// daily folder, made from the daily template when missing) and templates
// inserted at the cursor, with {{date}}, {{time}} and {{title}} filled.
//
// The actions a command palette lists are plain methods: openQuickOpen,
// openDaily, openTemplates (insert a template), showTag.

import { ApiError } from '../api';
import type { TagCount, TreeNode } from '../api/types';
import { num } from '../lib/format';
import { m } from '../lib/i18n.svelte';
import { pushRecentNote, readPref, readRecentNotes, writePref } from '../lib/prefs';
import { entryName, QuickMatcher, type QuickEntry } from '../lib/quickopen';
import { isMarkdown } from '../lib/tree';
import type { AppState } from './app.svelte';
import { getApp } from './app.svelte';

/** The daily note and templates settings of a folder (kept in this browser's storage, by folder). */
export interface DailySettings {
  /** The folder of daily notes ("" = the top). */
  dailyFolder: string;
  /** The daily note's name: YYYY MM DD (YY M D) and [literal text]; "/" makes folders. */
  dailyFormat: string;
  /** The folder of templates. */
  templatesFolder: string;
  /** The template of a new daily note ("" = none: it starts empty). */
  dailyTemplate: string;
}

/** Folder names and a date format, the same in every language (as Obsidian's). */
export const DAILY_DEFAULTS: DailySettings = {
  dailyFolder: 'Daily', // i18n-ignore: a folder name
  dailyFormat: 'YYYY-MM-DD', // i18n-ignore: a date format
  templatesFolder: 'Templates', // i18n-ignore: a folder name
  dailyTemplate: 'Templates/Daily.md',
};

const PREF: Record<keyof DailySettings, string> = {
  dailyFolder: 'mnote.daily.folder',
  dailyFormat: 'mnote.daily.format',
  templatesFolder: 'mnote.templates.folder',
  dailyTemplate: 'mnote.daily.template',
};

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Formats d as fmt says: YYYY YY MM M DD D HH H mm ss; [text] is kept as written. */
export function formatDate(fmt: string, d: Date): string {
  return fmt.replace(/\[([^\]]*)\]|YYYY|YY|MM|M|DD|D|HH|H|mm|ss/g, (tok, lit: string | undefined) => {
    if (lit !== undefined) return lit;
    switch (tok) {
      case 'YYYY':
        return pad(d.getFullYear(), 4);
      case 'YY':
        return pad(d.getFullYear() % 100);
      case 'MM':
        return pad(d.getMonth() + 1);
      case 'M':
        return String(d.getMonth() + 1);
      case 'DD':
        return pad(d.getDate());
      case 'D':
        return String(d.getDate());
      case 'HH':
        return pad(d.getHours());
      case 'H':
        return String(d.getHours());
      case 'mm':
        return pad(d.getMinutes());
      default:
        return pad(d.getSeconds());
    }
  });
}

/** Fills a template's {{date}}, {{date:FORMAT}}, {{time}}, {{time:FORMAT}} and {{title}}. */
export function fillTemplate(text: string, vars: { now: Date; title: string; dateFormat: string }): string {
  return text.replace(/\{\{\s*(date|time|title)\s*(?::([^}]*))?\}\}/gi, (_all, name: string, fmt: string | undefined) => {
    const n = name.toLowerCase();
    if (n === 'title') return vars.title;
    const f = fmt?.trim() || (n === 'date' ? vars.dateFormat : 'HH:mm'); // i18n-ignore: a time format
    return formatDate(f, vars.now);
  });
}

function clean(folder: string): string {
  return folder.trim().replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
}

/** The path of the daily note of day d. */
export function dailyPath(s: DailySettings, d: Date): string {
  const name = clean(formatDate(s.dailyFormat.trim() || DAILY_DEFAULTS.dailyFormat, d));
  const folder = clean(s.dailyFolder);
  const file = isMarkdown(name) ? name : name + '.md';
  return folder ? `${folder}/${file}` : file;
}

export class FindStore {
  /** Quick Open shows. */
  quickOpen = $state(false);
  /** The template picker shows. */
  templatesOpen = $state(false);
  tags: TagCount[] = $state.raw([]);
  tagsLoaded = $state(false);
  tagsError: ApiError | null = $state.raw(null);
  /** Bumped when a setting is written (settings reads storage again). */
  private written = $state(0);
  /** The open folder's settings (each folder has its own; one without any takes those written before they were per folder, else the defaults). */
  readonly settings: DailySettings = $derived.by(() => {
    void this.written;
    return read(this.app.workspace.info?.dir ?? '');
  });
  /** Quick Open's and the template picker's matcher: what it worked out is kept from one opening to the next. */
  readonly matcher = new QuickMatcher();

  private tagTimer: ReturnType<typeof setTimeout> | null = null;
  private watchers = 0;
  private off: (() => void) | null = null;

  constructor(private readonly app: AppState) {}

  // ---- Quick Open ---------------------------------------------------------------

  /** Opens Quick Open (Ctrl/Cmd+P) when a folder is open. */
  openQuickOpen(): void {
    if (this.app.workspace.info) this.quickOpen = true;
  }

  closeQuickOpen(): void {
    this.quickOpen = false;
  }

  /** A note was opened (or its tab shown): first among the folder's recent notes. */
  noteOpened(path: string): void {
    const dir = this.app.workspace.info?.dir;
    if (dir) pushRecentNote(dir, path);
  }

  /** The folder's notes opened last, most recent first (Quick Open lists them first when nothing is typed). */
  recentNotes(): string[] {
    const dir = this.app.workspace.info?.dir;
    return dir ? readRecentNotes(dir) : [];
  }

  /** Every note with its name and title; from the tree (names only) while the index builds or when the folder is not indexed. */
  async entries(): Promise<QuickEntry[]> {
    if (this.app.notes.status?.ready) {
      try {
        const ts = await this.app.client.notes.titles();
        return ts.map((t) => ({ path: t.path, name: entryName(t.path), title: t.title ?? '' }));
      } catch {
        // the tree's names below
      }
    }
    const out: QuickEntry[] = [];
    const walk = (n: TreeNode) => {
      for (const c of n.children ?? []) {
        if (c.dir) walk(c);
        else if (isMarkdown(c.path)) out.push({ path: c.path, name: entryName(c.path), title: '' });
      }
    };
    if (this.app.workspace.root) walk(this.app.workspace.root);
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  // ---- tags ---------------------------------------------------------------------

  /** Keeps the tags current while something shows them; returns the stop. */
  watch(): () => void {
    if (this.watchers++ === 0) {
      void this.loadTags();
      const c = this.app.client;
      const offs = [
        c.on('workspace:changed', (p) => {
          if (p?.rescan || p?.changes?.some((x) => x.dir || isMarkdown(x.path))) this.scheduleTags();
        }),
        c.on('notes:index', (st) => {
          if (st?.ready) this.scheduleTags();
        }),
      ];
      this.off = () => offs.forEach((f) => f());
    }
    return () => {
      if (--this.watchers === 0) {
        this.off?.();
        this.off = null;
        if (this.tagTimer) clearTimeout(this.tagTimer);
      }
    };
  }

  /** The index follows a change a moment later: ask after it. */
  private scheduleTags(ms = 600): void {
    if (this.tagTimer) clearTimeout(this.tagTimer);
    this.tagTimer = setTimeout(() => void this.loadTags(), ms);
  }

  async loadTags(): Promise<void> {
    try {
      this.tags = await this.app.client.notes.tags();
      this.tagsError = null;
    } catch (e) {
      this.tags = [];
      this.tagsError = ApiError.from(e);
    }
    this.tagsLoaded = true;
  }

  /** The folder's tags a tag being typed may complete to (#query): those starting with it first, then those containing it, the most used first within each; at most 30. */
  async tagOptions(query: string): Promise<{ label: string; detail?: string; insert: string }[]> {
    if (!this.tagsLoaded) await this.loadTags();
    const q = query.toLowerCase();
    const starts: TagCount[] = [];
    const has: TagCount[] = [];
    for (const t of this.tags) {
      const k = t.tag.toLowerCase();
      if (k === q) continue; // typed already
      if (k.startsWith(q)) starts.push(t);
      else if (k.includes(q)) has.push(t);
    }
    return [...starts, ...has].slice(0, 30).map((t) => ({ label: '#' + t.tag, detail: m.notes_fd_tag_notes({ count: t.notes, n: num(t.notes) }), insert: t.tag + ' ' }));
  }

  /** Searches the notes carrying tag (the search view, tag:NAME). */
  showTag(tag: string): void {
    const notes = this.app.notes;
    if (!this.app.ui.notesOpen) this.app.ui.toggleNotes();
    notes.showSearch();
    notes.setQuery(`tag:${tag}`);
  }

  // ---- daily note and templates ---------------------------------------------------

  /** Sets one of the open folder's settings. */
  setSetting(key: keyof DailySettings, v: string): void {
    writePref(prefKey(key, this.app.workspace.info?.dir ?? ''), v.trim());
    this.written++;
  }

  /** Opens today's daily note (Alt+D), made from the daily template when missing; its path, or null. */
  async openDaily(now = new Date()): Promise<string | null> {
    const ws = this.app.workspace;
    if (!ws.info) return null;
    const path = dailyPath(this.settings, now);
    if (!ws.node(path)) {
      const tpl = this.settings.dailyTemplate ? await this.readTemplate(clean(this.settings.dailyTemplate), true) : null;
      const slash = path.lastIndexOf('/');
      const made = await ws.create(slash < 0 ? '' : path.slice(0, slash), path.slice(slash + 1), false);
      if (made && tpl) {
        try {
          await this.app.client.files.save(path, fillTemplate(tpl, { now, title: entryName(path), dateFormat: this.dateFormat }));
        } catch (e) {
          this.app.toasts.error(() => m.notes_fd_template_failed({ error: ApiError.from(e).message }));
        }
      }
      if (!made && !ws.node(path)) return null;
    }
    return (await this.app.openFile(path)) ? path : null;
  }

  private get dateFormat(): string {
    const f = this.settings.dailyFormat || DAILY_DEFAULTS.dailyFormat;
    // The name's last part: a format making folders (YYYY/MM/YYYY-MM-DD) dates as its file.
    return f.slice(f.lastIndexOf('/') + 1);
  }

  /** The notes of the templates folder (and below), by path. */
  async templates(): Promise<string[]> {
    const folder = clean(this.settings.templatesFolder || DAILY_DEFAULTS.templatesFolder);
    const all = await this.entries();
    return all
      .map((e) => e.path)
      .filter((p) => p.startsWith(folder + '/') && isMarkdown(p))
      .sort();
  }

  /** Opens the template picker (it inserts into the open note). */
  openTemplates(): void {
    if (!this.app.editor.active) {
      this.app.toasts.show({ message: m.notes_fd_template_no_note });
      return;
    }
    this.templatesOpen = true;
  }

  closeTemplates(): void {
    this.templatesOpen = false;
  }

  /** Inserts the template at path into the open note at its cursor, variables filled. */
  async insertTemplate(path: string, now = new Date()): Promise<boolean> {
    const tab = this.app.editor.active;
    if (!tab) return false;
    const text = await this.readTemplate(path, false);
    if (text === null) return false;
    return this.app.editor.insertAtCursor(tab.path, fillTemplate(text, { now, title: entryName(tab.path), dateFormat: this.dateFormat }));
  }

  /** A template's text (an open tab's, unsaved edits included); null when it cannot be read (quiet: missing is fine). */
  private async readTemplate(path: string, quietMissing: boolean): Promise<string | null> {
    const tab = this.app.editor.byPath(path);
    if (tab) return tab.text();
    if (quietMissing && !this.app.workspace.node(path)) return null;
    const c = this.app.client;
    try {
      const b = await c.files.open(path);
      return b.content;
    } catch (e) {
      if (!quietMissing) this.app.toasts.error(() => m.notes_fd_template_failed({ error: ApiError.from(e).message }));
      return null;
    } finally {
      if (!this.app.editor.byPath(path)) void c.files.close(path).catch(() => {});
    }
  }
}

/** Where a folder's setting is kept: the setting's key and the folder. */
function prefKey(k: keyof DailySettings, dir: string): string {
  return dir ? `${PREF[k]}@${dir}` : PREF[k];
}

function read(dir: string): DailySettings {
  const s = { ...DAILY_DEFAULTS };
  for (const k of Object.keys(PREF) as (keyof DailySettings)[]) {
    const v = readPref(prefKey(k, dir)) ?? readPref(PREF[k]);
    if (v !== null) s[k] = v;
  }
  return s;
}

const made = new WeakMap<AppState, FindStore>();

/** The find store of an app (the app's own by default), made on first use. */
export function getFind(app: AppState = getApp()): FindStore {
  let f = made.get(app);
  if (!f) made.set(app, (f = new FindStore(app)));
  return f;
}

