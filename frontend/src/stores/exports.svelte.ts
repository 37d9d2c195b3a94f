// Exporting a session as Markdown, HTML or JSONL: the export dialog's
// choices and the call. In the window Go shows a save dialog and writes the
// file (the result has `path`); in mnote serve the page downloads the
// content; a result with neither was cancelled in the save dialog. The
// export is worded (labels, dates) in the interface's language.

import { ApiError, type Client } from '../api';
import type { ExportFormat, Exported } from '../api/types';
import { downloadText } from '../lib/download';
import { locale, m } from '../lib/i18n.svelte';
import type { ToastStore } from './toasts.svelte';
import { writePrefs } from '../lib/writeprefs.svelte';

export type ExportOutcome = 'saved' | 'downloaded' | 'cancelled' | 'failed';

/** Saves a file from the page (a Blob and a temporary <a download> by default). */
export type Downloader = (filename: string, mime: string, content: string) => void;

/** The formats, with their names and hints in the interface's language
 * (getters: read in a template, they follow a change of language). */
export const FORMATS: readonly { readonly id: ExportFormat; readonly label: string; readonly hint: string }[] = [
  {
    id: 'md',
    get label() {
      return m.export_format_md();
    },
    get hint() {
      return m.export_hint_md();
    },
  },
  {
    id: 'html',
    get label() {
      return m.export_format_html();
    },
    get hint() {
      return m.export_hint_html();
    },
  },
  {
    id: 'jsonl',
    get label() {
      return m.export_format_jsonl();
    },
    get hint() {
      return m.export_hint_jsonl();
    },
  },
];

export class ExportStore {
  /** The session the export dialog is open for (null: closed). */
  sessionId: string | null = $state(null);
  format: ExportFormat = $state('md');
  redact = $state(true);
  includeThoughts = $state(false);
  includeToolIO = $state(false);
  /** The images of the user's messages (md, html; JSONL never has them). */
  includeImages = $state(true);
  busy = $state(false);
  error: ApiError | null = $state.raw(null);

  constructor(
    private readonly client: Client,
    private readonly toasts: ToastStore,
    private readonly download: Downloader = downloadText,
  ) {}

  open(sessionId: string, format: ExportFormat = 'md'): void {
    this.sessionId = sessionId;
    this.error = null;
    this.busy = false;
    this.setFormat(format);
  }

  close(): void {
    this.sessionId = null;
  }

  /** Picks a format; redaction goes back to that format's default. */
  setFormat(f: ExportFormat): void {
    this.format = f;
    this.redact = f !== 'jsonl';
  }

  /** Exports with the dialog's choices; the dialog closes once the file is saved or downloaded
   * (a cancelled save dialog leaves it as it was). */
  async run(): Promise<ExportOutcome> {
    const id = this.sessionId;
    if (!id || this.busy) return 'failed';
    this.busy = true;
    this.error = null;
    try {
      const r = await this.client.sessions.export(id, {
        format: this.format,
        redact: this.redact,
        includeThoughts: this.includeThoughts,
        includeToolIO: this.includeToolIO,
        ...(this.format !== 'jsonl' && this.includeImages ? { images: true } : {}),
        locale: locale(),
        ...(writePrefs.strictBreaks ? { strictBreaks: true } : {}),
      });
      const outcome = this.deliver(r);
      if (this.sessionId === id && outcome !== 'cancelled' && outcome !== 'failed') this.close();
      return outcome;
    } catch (e) {
      this.error = ApiError.from(e);
      return 'failed';
    } finally {
      this.busy = false;
    }
  }

  /** What to do with Go's answer: say where it was saved, download it, or nothing (cancelled). */
  deliver(r: Exported): ExportOutcome {
    if (r.path) {
      this.toasts.show({ message: m.export_saved_to({ path: r.path }), timeoutMs: 6000 });
      return 'saved';
    }
    if (r.content) {
      try {
        this.download(r.filename, r.mime, r.content);
      } catch (e) {
        this.toasts.error(m.export_download_failed({ filename: r.filename, error: ApiError.from(e).message }));
        return 'failed';
      }
      this.toasts.show({ message: m.export_downloaded({ filename: r.filename }) });
      return 'downloaded';
    }
    return 'cancelled';
  }
}
