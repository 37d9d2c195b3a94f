// The fake Go side's workspace (dev/mock.ts): an in-memory folder of notes
// with open buffers that behave like Go's (workspace/buffers.go: clean
// buffers reload, dirty ones get a conflict, deleted ones are marked),
// the file tree, find, the trash, and per-turn checkpoints with revert.
//
// For trying things by hand (or from a headless browser), the page gets
// window.__mockfs: external(path, content) writes a file "from another
// program", remove(path) deletes one, agentWrite(path, content) writes as
// an agent would, read(path) returns what is on "disk".

import { structuredPatch } from 'diff';
import type { BufferEvent, BufferState, FindHit, TreeNode, WorkspaceChange, WorkspaceInfo } from '../src/api/types';
import { baseName, compareNodes, dirName, isMarkdown, isUnder } from '../src/lib/tree';

type Emit = (name: string, data: unknown) => void;
type Fail = (code: string, message: string, details?: string) => never;

interface Buffer {
  content: string;
  disk: string;
  theirs: string;
  dirty: boolean;
  conflict: boolean;
  deleted: boolean;
  version: number;
}

interface TurnFileRec {
  path: string;
  op: 'created' | 'changed' | 'removed';
  before: string | null;
  after: string | null;
}

interface TurnRec {
  turn: number;
  files: TurnFileRec[];
  ended: string;
  reverted?: string;
}

const GARDEN = '# Garden\n- tomatoes\n- basil\n';

export function unified(fromName: string, toName: string, a: string, b: string): string {
  if (a === b) return '';
  const p = structuredPatch(fromName, toName, a, b, '', '', { context: 3 });
  let out = `--- ${fromName}\n+++ ${toName}\n`;
  for (const h of p.hunks) {
    out += `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n`;
    for (const l of h.lines) out += l + '\n';
  }
  return out;
}

export class MockFS {
  readonly files = new Map<string, string>();
  readonly dirs = new Set<string>();
  readonly buffers = new Map<string, Buffer>();
  readonly turns = new Map<string, TurnRec[]>();
  private trash = new Map<string, { path: string; dir: boolean; files: [string, string][]; dirs: string[] }>();
  private trashIds = 0;
  info: WorkspaceInfo | null;

  constructor(
    private readonly emit: Emit,
    private readonly fail: Fail,
    scenario: string,
  ) {
    this.info = { dir: '/home/me/notes', name: 'notes', recent: ['/home/me/notes', '/home/me/work-notes', '/srv/shared/wiki'], canPick: false };
    if (scenario === 'tree10k') {
      // 10,000 notes in 1,000 folders (the benchmark shape).
      for (let d = 0; d < 1000; d++) {
        const dir = `area-${Math.floor(d / 100)}/topic-${d}`;
        for (let f = 0; f < 10; f++) this.put(`${dir}/note-${f}.md`, `# Note ${d}.${f}\n`);
      }
    } else {
      this.put('README.md', '# My notes\n\nSee [the index](notes/index.md).\n');
      this.put('notes/index.md', '# Index\n- gardening\n- rust\n- taxes\n');
      this.put('notes/garden.md', GARDEN);
      this.put('notes/rust.md', '# Rust\n\nLifetimes: `&\'a T` lives at least as long as `\'a`.\n');
      this.put('notes/taxes-2025.md', '# Taxes 2025\n- [ ] receipts\n- [x] bank statements\n');
      this.put('notes/Note 2.md', '# Note 2\n');
      this.put('notes/Note 10.md', '# Note 10\n');
      this.put('archive/2023/old ideas.md', '# Old ideas\n');
      this.put('archive/photo.png', '(binary)');
      this.put('todo.txt', 'buy milk\n');
    }
  }

  private put(path: string, content: string): void {
    this.files.set(path, content);
    for (let d = dirName(path); d; d = dirName(d)) this.dirs.add(d);
  }

  private need(): void {
    if (!this.info) this.fail('bad_request', 'no folder is open');
  }

  private clean(path: unknown): string {
    const p = String(path ?? '').replace(/^\/+|\/+$/g, '');
    if (!p || p.split('/').some((s) => s === '..' || s === '.' || s === '')) this.fail('bad_request', `${String(path)}: not a path inside the workspace`);
    return p;
  }

  // ---- workspace.* ---------------------------------------------------------------

  get(): WorkspaceInfo | null {
    return this.info;
  }

  open(dir: unknown): WorkspaceInfo {
    const d = String(dir ?? '').trim();
    if (!d.startsWith('/')) this.fail('bad_request', `${d || '(empty)'}: give an absolute folder path`);
    const recent = [d, ...(this.info?.recent ?? []).filter((x) => x !== d)].slice(0, 10);
    this.info = { dir: d, name: baseName(d) || d, recent, canPick: false };
    this.buffers.clear();
    return this.info;
  }

  tree(all: boolean): TreeNode {
    this.need();
    const root: TreeNode = { name: this.info!.name, path: '', dir: true, children: [] };
    const nodes = new Map<string, TreeNode>([['', root]]);
    const dirNode = (p: string): TreeNode => {
      let n = nodes.get(p);
      if (n) return n;
      n = { name: baseName(p), path: p, dir: true, children: [] };
      nodes.set(p, n);
      dirNode(dirName(p)).children!.push(n);
      return n;
    };
    for (const d of this.dirs) dirNode(d);
    for (const f of this.files.keys()) {
      if (!all && !isMarkdown(baseName(f))) continue;
      dirNode(dirName(f)).children!.push({ name: baseName(f), path: f });
    }
    const sort = (n: TreeNode) => {
      n.children?.sort(compareNodes);
      n.children?.forEach(sort);
    };
    sort(root);
    return root;
  }

  find(query: unknown, limit: unknown): FindHit[] {
    this.need();
    const q = String(query ?? '').toLowerCase();
    const out: FindHit[] = [];
    for (const p of this.files.keys()) {
      if (!isMarkdown(baseName(p))) continue;
      const name = baseName(p).toLowerCase();
      let score = 0;
      if (!q) score = 1;
      else if (name === q || name === q + '.md') score = 100;
      else if (name.startsWith(q)) score = 80;
      else if (name.includes(q)) score = 60;
      else if (p.toLowerCase().includes(q)) score = 40;
      else {
        let i = 0;
        for (const c of p.toLowerCase()) if (c === q[i]) i++;
        if (i === q.length) score = 10;
      }
      if (score > 0) out.push({ path: p, name: baseName(p), score });
    }
    out.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
    return out.slice(0, Number(limit) || 50);
  }

  // ---- files.* ---------------------------------------------------------------------

  private state(path: string, b: Buffer): BufferState {
    return { path, content: b.content, dirty: b.dirty, version: b.version, ...(b.conflict ? { conflict: true } : {}), ...(b.deleted ? { deleted: true } : {}) };
  }

  private buf(path: string): Buffer {
    const b = this.buffers.get(path);
    if (!b) this.fail('bad_request', `${path} is not open in the editor; open it first`);
    return b;
  }

  fileOpen(path: unknown): BufferState {
    this.need();
    const p = this.clean(path);
    const have = this.buffers.get(p);
    if (have) return this.state(p, have);
    const c = this.files.get(p);
    if (c === undefined) this.fail('not_found', `${p} does not exist`);
    if (c === '(binary)') this.fail('bad_request', `${p} is not a UTF-8 text file`);
    const b: Buffer = { content: c, disk: c, theirs: '', dirty: false, conflict: false, deleted: false, version: 1 };
    this.buffers.set(p, b);
    return this.state(p, b);
  }

  update(path: unknown, content: unknown): BufferState {
    const p = this.clean(path);
    const b = this.buf(p);
    b.content = String(content ?? '');
    b.dirty = !(b.content === b.disk && !b.deleted);
    b.version++;
    return this.state(p, b);
  }

  save(path: unknown, content: unknown): BufferState {
    const p = this.clean(path);
    if (!this.buffers.has(p)) this.fileOpen(p);
    this.update(p, content);
    const b = this.buf(p);
    if (b.conflict) this.fail('conflict', `${p} changed on disk; choose keep mine or take theirs first`);
    const cur = this.files.get(p);
    if (cur !== undefined && cur !== b.disk && cur !== b.content) {
      b.conflict = true;
      b.theirs = cur;
      b.version++;
      this.emit('workspace:changed', { buffers: [{ kind: 'conflict', buffer: this.state(p, b) }] });
      this.fail('conflict', `${p} changed on disk since it was opened; choose keep mine or take theirs`);
    }
    const existed = cur !== undefined;
    this.put(p, b.content);
    b.disk = b.content;
    b.dirty = false;
    b.deleted = false;
    b.version++;
    this.changed([{ path: p, op: existed ? 'changed' : 'created', origin: 'app' }]);
    return this.state(p, b);
  }

  close(path: unknown): void {
    this.buffers.delete(String(path ?? ''));
  }

  diff(path: unknown): string {
    const p = this.clean(path);
    const b = this.buf(p);
    const theirs = b.conflict ? b.theirs : (this.files.get(p) ?? '');
    return unified('disk/' + p, 'buffer/' + p, theirs, b.content);
  }

  resolve(path: unknown, take: unknown): BufferState {
    const p = this.clean(path);
    const b = this.buf(p);
    if (take !== 'mine' && take !== 'theirs') this.fail('bad_request', `take must be "mine" or "theirs", not ${JSON.stringify(take)}`);
    if (b.conflict) {
      if (take === 'mine') {
        b.disk = b.theirs;
        b.dirty = b.content !== b.disk;
      } else {
        b.content = b.theirs;
        b.disk = b.theirs;
        b.dirty = false;
      }
      b.theirs = '';
      b.conflict = false;
      b.version++;
    }
    return this.state(p, b);
  }

  create(path: unknown, dir: unknown): void {
    this.need();
    const p = this.clean(path);
    if (this.files.has(p) || this.dirs.has(p)) this.fail('bad_request', `${p} already exists`);
    if (dir) {
      this.dirs.add(p);
      for (let d = dirName(p); d; d = dirName(d)) this.dirs.add(d);
    } else this.put(p, '');
    this.changed([{ path: p, op: 'created', dir: !!dir, origin: 'app' }]);
  }

  rename(from: unknown, to: unknown): void {
    const f = this.clean(from);
    const t = this.clean(to);
    const isDir = this.dirs.has(f);
    if (!isDir && !this.files.has(f)) this.fail('not_found', `${f} does not exist`);
    if (this.files.has(t) || this.dirs.has(t)) this.fail('bad_request', `${t} already exists: pick another name`);
    if (isUnder(t, f)) this.fail('bad_request', 'a folder cannot go inside itself');
    const moves: [string, string][] = [];
    for (const p of [...this.files.keys()]) if (isUnder(p, f)) moves.push([p, t + p.slice(f.length)]);
    for (const [a, b] of moves) {
      const c = this.files.get(a)!;
      this.files.delete(a);
      this.put(b, c);
    }
    for (const d of [...this.dirs]) {
      if (isUnder(d, f)) {
        this.dirs.delete(d);
        this.dirs.add(t + d.slice(f.length));
      }
    }
    for (let d = dirName(t); d; d = dirName(d)) this.dirs.add(d);
    const bufs: BufferEvent[] = [];
    for (const [p, b] of [...this.buffers]) {
      if (!isUnder(p, f)) continue;
      const np = t + p.slice(f.length);
      this.buffers.delete(p);
      b.version++;
      this.buffers.set(np, b);
      bufs.push({ kind: 'moved', buffer: this.state(np, b), from: p });
    }
    this.emit('workspace:changed', { changes: [{ path: t, from: f, op: 'renamed', dir: isDir, origin: 'app' }], buffers: bufs });
  }

  remove(path: unknown): { trash: Record<string, unknown> } {
    const p = this.clean(path);
    const isDir = this.dirs.has(p);
    if (!isDir && !this.files.has(p)) this.fail('not_found', `${p} does not exist`);
    const files: [string, string][] = [...this.files].filter(([k]) => isUnder(k, p));
    const dirs = [...this.dirs].filter((d) => isUnder(d, p));
    for (const [k] of files) this.files.delete(k);
    for (const d of dirs) this.dirs.delete(d);
    const id = 't' + ++this.trashIds;
    this.trash.set(id, { path: p, dir: isDir, files, dirs });
    this.changed([{ path: p, op: 'removed', dir: isDir, origin: 'app' }]);
    return { trash: { path: p, dir: isDir, trash: id, name: baseName(p), deletedAt: new Date().toISOString() } };
  }

  restore(trash: unknown): void {
    const id = String((trash as { trash?: unknown } | null)?.trash ?? '');
    const t = this.trash.get(id);
    if (!t) this.fail('not_found', 'that is no longer in the trash');
    if (this.files.has(t.path) || this.dirs.has(t.path)) this.fail('bad_request', `${t.path} exists again: move it away first`);
    this.trash.delete(id);
    for (const d of t.dirs) this.dirs.add(d);
    for (const [k, c] of t.files) this.put(k, c);
    const changes: WorkspaceChange[] = [{ path: t.path, op: 'created', dir: t.dir, origin: 'app' }];
    if (t.dir) for (const [k] of t.files) changes.push({ path: k, op: 'created', origin: 'app' });
    this.changed(changes);
  }

  // ---- the disk changes ------------------------------------------------------------

  /** Emits changes and brings open buffers in step (like Go's watcher). */
  private changed(changes: WorkspaceChange[], extra: BufferEvent[] = []): void {
    const bufs: BufferEvent[] = [...extra];
    for (const c of changes) {
      for (const [p, b] of this.buffers) {
        if (!isUnder(p, c.path)) continue;
        const disk = this.files.get(p);
        if (disk === undefined) {
          if (!b.deleted) {
            b.deleted = true;
            b.version++;
            bufs.push({ kind: 'deleted', buffer: this.state(p, b) });
          }
          continue;
        }
        let kind: string = 'reloaded';
        if (b.deleted) {
          b.deleted = false;
          kind = 'restored';
        } else if ((b.conflict && disk === b.theirs) || (!b.conflict && disk === b.disk)) continue;
        if (!b.dirty || disk === b.content) {
          b.content = disk;
          b.disk = disk;
          b.theirs = '';
          b.dirty = false;
          b.conflict = false;
        } else {
          b.conflict = true;
          b.theirs = disk;
          kind = 'conflict';
        }
        b.version++;
        bufs.push({ kind, buffer: this.state(p, b) });
      }
    }
    this.emit('workspace:changed', { changes, ...(bufs.length ? { buffers: bufs } : {}) });
  }

  /** Another program wrote a file. */
  external(path: string, content: string): void {
    const existed = this.files.has(path);
    this.put(path, content);
    this.changed([{ path, op: existed ? 'changed' : 'created' }]);
  }

  /** Another program deleted a file. */
  externalRemove(path: string): void {
    if (!this.files.delete(path)) return;
    this.changed([{ path, op: 'removed' }]);
  }

  /** An agent's fs/write_text_file during a turn: the buffer takes it at once; the turn's checkpoint keeps what was there before. */
  agentWrite(sessionId: string, turn: number, path: string, content: string): void {
    const before = this.files.get(path) ?? null;
    this.put(path, content);
    this.record(sessionId, turn, { path, op: before === null ? 'created' : 'changed', before, after: content });
    const bufs: BufferEvent[] = [];
    const b = this.buffers.get(path);
    if (b) {
      Object.assign(b, { content, disk: content, theirs: '', dirty: false, conflict: false, deleted: false });
      b.version++;
      bufs.push({ kind: 'written', buffer: this.state(path, b) });
    }
    this.emit('workspace:changed', { changes: [{ path, op: before === null ? 'created' : 'changed', origin: 'agent', turn: `${sessionId}/${turn}` }], buffers: bufs });
  }

  private record(sessionId: string, turn: number, f: TurnFileRec): void {
    let list = this.turns.get(sessionId);
    if (!list) this.turns.set(sessionId, (list = []));
    let t = list.find((x) => x.turn === turn);
    if (!t) list.push((t = { turn, files: [], ended: new Date().toISOString() }));
    const have = t.files.find((x) => x.path === f.path);
    if (have) have.after = f.after;
    else t.files.push(f);
    t.ended = new Date().toISOString();
  }

  // ---- checkpoints.* -----------------------------------------------------------------

  cpList(sessionId: unknown) {
    return (this.turns.get(String(sessionId)) ?? []).map((t) => ({
      turn: t.turn,
      ended: t.ended,
      ...(t.reverted ? { reverted: t.reverted } : {}),
      files: t.files.map((f) => ({ path: f.path, op: f.op })),
    }));
  }

  private turn(sessionId: unknown, turn: unknown): TurnRec {
    const t = this.turns.get(String(sessionId))?.find((x) => x.turn === Number(turn));
    if (!t) this.fail('not_found', `turn ${String(turn)} changed no files`);
    return t;
  }

  cpChanges(sessionId: unknown, turn: unknown) {
    return this.turn(sessionId, turn).files.map((f) => ({
      path: f.path,
      op: f.op,
      diff: unified(f.op === 'created' ? '/dev/null' : 'a/' + f.path, f.op === 'removed' ? '/dev/null' : 'b/' + f.path, f.before ?? '', f.after ?? ''),
    }));
  }

  cpRevert(sessionId: unknown, turn: unknown) {
    const t = this.turn(sessionId, turn);
    const conflicts = t.files.filter((f) => (this.files.get(f.path) ?? null) !== f.after);
    if (conflicts.length) {
      const details = conflicts.map((f) => unified('turn/' + f.path, 'now/' + f.path, f.after ?? '', this.files.get(f.path) ?? '')).join('');
      this.fail(
        'conflict',
        `cannot revert turn ${t.turn}: ${conflicts.map((f) => f.path).join(', ')} changed since (nothing was reverted); revert later turns first or undo those edits`,
        details,
      );
    }
    const restored: string[] = [];
    const deleted: string[] = [];
    const changes: WorkspaceChange[] = [];
    for (const f of t.files) {
      if (f.before === null) {
        this.files.delete(f.path);
        deleted.push(f.path);
        changes.push({ path: f.path, op: 'removed', origin: 'app' });
      } else {
        this.put(f.path, f.before);
        restored.push(f.path);
        changes.push({ path: f.path, op: 'changed', origin: 'app' });
      }
    }
    t.reverted = new Date().toISOString();
    this.changed(changes);
    return { restored, deleted };
  }
}
