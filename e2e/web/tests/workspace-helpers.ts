// Helpers for the notes side (tree, editor, Changes): files written into
// the test's workspace folder from Node, and UI steps as a person takes
// them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';
import type { Serve } from './fixtures';

/** Writes a file into the workspace (folders made), as another program would. */
export function writeNote(serve: Serve, rel: string, content: string): string {
  const abs = path.join(serve.workspace, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
  return abs;
}

export function readNote(serve: Serve, rel: string): string | null {
  try {
    return fs.readFileSync(path.join(serve.workspace, rel), 'utf8');
  } catch {
    return null;
  }
}

/** Waits until the notes index finds query in count notes (the watcher brought the files written after serve started). */
export async function indexed(serve: Serve, query: string, count = 1): Promise<void> {
  await expect
    .poll(async () => (await serve.call<unknown[]>('notes.search', { query })).length, { timeout: 15_000 })
    .toBe(count);
}

export function tree(page: Page): Locator {
  return page.getByTestId('file-tree');
}

export function treeRow(page: Page, rel: string): Locator {
  return tree(page).locator(`[data-path="${rel}"]`);
}

/** The editor's text as shown (CodeMirror lines joined by newlines). */
export function editorText(page: Page): Locator {
  return page.locator('.pane .cm-content');
}

export function tab(page: Page, rel: string): Locator {
  return page.locator(`.pane [role="tab"][data-path="${rel}"]`);
}

/** Opens a note from the tree as a person would: its folders, then the note. */
export async function openNote(page: Page, rel: string): Promise<void> {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const row = treeRow(page, dir);
    await expect(row).toBeVisible();
    if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  }
  await treeRow(page, rel).click();
  await expect(tab(page, rel)).toHaveAttribute('aria-selected', 'true');
  await expect(editorText(page)).toBeVisible();
}

/** Shows the open note's Markdown source (notes open in live preview, where markup off the cursor's line is hidden); kept for the notes opened next. */
export async function showSource(page: Page): Promise<void> {
  const b = page.getByTestId('view-modes').locator('[data-mode="edit"]');
  await b.click();
  await expect(b).toHaveAttribute('aria-pressed', 'true');
}

/** Types at the end of the open note. */
export async function typeAtEnd(page: Page, text: string): Promise<void> {
  await editorText(page).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text);
}

/** Lines of every transcript the test agent kept (its --state folder): the prompt blocks it received. */
export function agentRecords(serve: Serve): { sessionUpdate?: string; content?: Record<string, unknown> }[] {
  const dir = path.join(serve.home, 'agent-state');
  const out: { sessionUpdate?: string; content?: Record<string, unknown> }[] = [];
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return out;
  }
  for (const n of names) {
    for (const line of fs.readFileSync(path.join(dir, n), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const rec = JSON.parse(line) as { update?: Record<string, unknown> } & Record<string, unknown>;
        out.push((rec.update ?? rec) as { sessionUpdate?: string; content?: Record<string, unknown> });
      } catch {
        /* a torn line */
      }
    }
  }
  return out;
}
