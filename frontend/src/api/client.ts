// Typed functions, one per API method (app/API.md). Stores use these; no
// component does.

import { ApiError } from './errors';
import { sharedClient, type SharedApi } from './shared';
import { pickTransport, type ConnectionState, type Transport } from './transport';
import type {
  Agent,
  AgentCheck,
  AgentSessions,
  ElicitationAction,
  ElicitationRequest,
  BufferState,
  CustomAgentInput,
  EventMap,
  EventName,
  ExportOptions,
  Exported,
  FileDiff,
  FindHit,
  ForkResult,
  ImageData,
  Attached,
  Hit,
  LinksUndo,
  LinksUpdated,
  NoteHeading,
  NoteText,
  NoteHit,
  NoteTitle,
  TagCount,
  NoteLink,
  NotesIndexStatus,
  PermissionRequest,
  PermissionRule,
  PromptExtras,
  PublishOptions,
  RemovedData,
  RevertResult,
  FileHunks,
  Hunk,
  HunkAction,
  RunningAgent,
  SessionSummary,
  Share,
  Snapshot,
  SyncConfigInput,
  SyncStatus,
  TerminalOpened,
  InstallStarted,
  RegistryListing,
  Trashed,
  TrashedSession,
  TreeNode,
  TurnChanges,
  WorkspaceInfo,
} from './types';

export interface Client {
  readonly transportKind: 'wails' | 'http';
  /** Resolves once the calls made so far have gone out (Transport.ready). */
  ready(): Promise<void>;
  agents: {
    list(): Promise<Agent[]>;
    check(name: string): Promise<AgentCheck>;
    saveCustom(a: CustomAgentInput): Promise<Agent[]>;
    removeCustom(name: string): Promise<Agent[]>;
    running(): Promise<RunningAgent[]>;
    /** Keeps (value "" removes) a key the agent gets in its environment; the value is never sent back. */
    setKey(name: string, variable: string, value: string): Promise<Agent[]>;
    /** Gives the agent mnote's notes tools over MCP, or not. */
    setNotesTools(name: string, on: boolean): Promise<Agent[]>;
    /** Opens a terminal on a login command (method: an auth method id; "" the login hint's). */
    openTerminal(name: string, method?: string): Promise<TerminalOpened>;
    /** The agent's own sessions in the open workspace (ACP session/list). */
    listSessions(agent: string): Promise<AgentSessions>;
    /** ACP authenticate with one of the agent's auth method ids. */
    authenticate(name: string, method: string): Promise<Agent[]>;
    /** ACP logout (Sign out), for an agent whose capabilities.logout is true. */
    logout(name: string): Promise<Agent[]>;
    /** Installs the agent's pinned npm package into mnote's folder; progress as agent:install. */
    install(name: string): Promise<InstallStarted>;
    cancelInstall(name: string): Promise<void>;
    /** Cancels the agent's starts in progress (agent:start "starting"). */
    cancelStart(name: string): Promise<void>;
    /** The ACP Registry's agents: the kept copy, or with refresh fetched now (the network only then). */
    registry(refresh: boolean): Promise<RegistryListing>;
    /** A registry agent's kept SVG icon, as text. */
    registryIcon(id: string): Promise<string>;
    /** Installs or updates a registry agent; progress as agent:install named "registry:ID". */
    registryInstall(id: string): Promise<InstallStarted>;
  };
  sessions: {
    list(args?: { limit?: number; offset?: number }): Promise<SessionSummary[]>;
    create(args: { agent: string; cwd?: string }): Promise<SessionSummary>;
    /** A session's snapshot; with limit, only its last entries (before
     * the entry `before`), `earlier` counting those before them. */
    open(id: string, page?: { limit?: number; before?: string }): Promise<Snapshot>;
    prompt(id: string, text: string, extra?: PromptExtras): Promise<{ turn: number }>;
    /** One of the session's kept images (a user message's image block names it by hash). */
    image(sessionId: string, hash: string): Promise<ImageData>;
    /** Edit and resend turn `turn`'s prompt: a new session with the turns before it, `text` its new prompt. */
    fork(sessionId: string, turn: number, text: string, locale?: string): Promise<ForkResult>;
    cancel(id: string): Promise<void>;
    /** Kills the command of one of the agent's terminals (a card's Stop). */
    killTerminal(id: string, terminalId: string): Promise<void>;
    rename(id: string, title: string): Promise<SessionSummary>;
    /** To the trash; agentCopy: the agent deletes its own copy first (ACP session/delete). */
    delete(id: string, agentCopy?: boolean): Promise<void>;
    restore(id: string): Promise<SessionSummary>;
    /** The sessions in the trash, the most recently deleted first. */
    trash(): Promise<TrashedSession[]>;
    /** Deletes a session in the trash for good. */
    purge(id: string): Promise<void>;
    search(query: string, limit?: number): Promise<Hit[]>;
    setMode(id: string, modeId: string): Promise<void>;
    setConfigOption(id: string, configId: string, value: string | boolean): Promise<void>;
    setModel(id: string, modelId: string): Promise<void>;
    switchAgent(id: string, agent: string): Promise<SessionSummary>;
    close(id: string): Promise<void>;
    export(id: string, opts: ExportOptions): Promise<Exported>;
    /** Brings one of the agent's own sessions into mnote (session/load). */
    import(agent: string, agentSessionId: string, title?: string): Promise<SessionSummary>;
  };
  elicitations: {
    /** Answers an agent's question; accept sends content (refused bad_request, details "field: reason" lines, when it does not fit). */
    answer(sessionId: string, requestId: string, action: ElicitationAction, content?: Record<string, unknown>): Promise<void>;
  };
  sync: {
    status(): Promise<SyncStatus>;
    configure(c: SyncConfigInput): Promise<SyncStatus>;
    enable(on: boolean): Promise<SyncStatus>;
    allowTitles(allow: boolean): Promise<SyncStatus>;
    now(): Promise<SyncStatus>;
    removeMyData(): Promise<RemovedData>;
  };
  /** Shared sessions: members, devices, the shared log (api/shared.ts). */
  shared: SharedApi;
  shares: {
    publish(id: string, opts?: PublishOptions): Promise<Share>;
    list(): Promise<Share[]>;
    revoke(id: string): Promise<void>;
  };
  permissions: {
    decide(sessionId: string, requestId: string, optionId: string): Promise<void>;
    /** The remembered always-choices. */
    rules(): Promise<PermissionRule[]>;
    /** Forgets one: the next such request asks again. */
    revoke(rule: Pick<PermissionRule, 'agent' | 'workspace' | 'toolKind'>): Promise<void>;
  };
  workspace: {
    /** The open folder, or null when none is. */
    get(): Promise<WorkspaceInfo | null>;
    open(dir: string): Promise<WorkspaceInfo>;
    /** The native folder dialog; null when cancelled. */
    /** locale words the dialog (its title and buttons). */
    pick(locale?: string): Promise<WorkspaceInfo | null>;
    tree(args?: { all?: boolean; filter?: string }): Promise<TreeNode>;
    find(query: string, limit?: number): Promise<FindHit[]>;
  };
  files: {
    open(path: string): Promise<BufferState>;
    update(path: string, content: string): Promise<BufferState>;
    save(path: string, content: string): Promise<BufferState>;
    close(path: string): Promise<void>;
    /** Unified diff mine → theirs of a conflicted buffer. */
    diff(path: string): Promise<string>;
    resolve(path: string, take: 'mine' | 'theirs'): Promise<BufferState>;
    create(path: string, dir?: boolean): Promise<void>;
    rename(from: string, to: string): Promise<void>;
    delete(path: string): Promise<Trashed>;
    restore(trash: Trashed): Promise<void>;
    /** Saves a pasted or dropped file (bytes in base64) as path, or as "name 1.ext", … when taken; the path used. */
    attach(path: string, data: string): Promise<Attached>;
    /** An image of the workspace a note shows. */
    image(path: string): Promise<ImageData>;
    /** Opens a document, picture, audio or video file of the workspace in the desktop's program for it. */
    openInApp(path: string): Promise<void>;
  };
  notes: {
    status(): Promise<NotesIndexStatus>;
    /** lines: list up to that many matching lines of each note (NoteHit.lines). */
    search(query: string, opts?: { folder?: string; limit?: number; lines?: number }): Promise<NoteHit[]>;
    /** The folder's tags, the most used first. */
    tags(): Promise<TagCount[]>;
    /** Every note with its title, by path. */
    titles(): Promise<NoteTitle[]>;
    headings(query: string, limit?: number): Promise<NoteHeading[]>;
    outline(path: string): Promise<NoteHeading[]>;
    /** A note's text (or a heading's section of it) as an embed shows it. */
    read(path: string, heading?: string): Promise<NoteText>;
    links(path: string): Promise<NoteLink[]>;
    backlinks(path: string): Promise<NoteLink[]>;
    /** The links to notes no note answers: of the note path, or of every note ("" or absent). */
    unresolved(path?: string): Promise<NoteLink[]>;
    /** The note a link in the note `from` opens; "" when none does. */
    resolve(from: string, target: string, wiki: boolean): Promise<string>;
    /** After a rename: rewrites the links that pointed at the note (dryRun: only counts them). */
    updateLinks(from: string, to: string, dryRun?: boolean): Promise<LinksUpdated>;
    undoUpdateLinks(undo: LinksUndo): Promise<string[]>;
  };
  checkpoints: {
    list(sessionId: string): Promise<TurnChanges[]>;
    changes(sessionId: string, turn: number): Promise<FileDiff[]>;
    revert(sessionId: string, turn: number): Promise<RevertResult>;
    undoRevert(sessionId: string, turn: number): Promise<RevertResult>;
    hunks(sessionId: string, turn: number, path: string): Promise<FileHunks>;
    review(sessionId: string, turn: number, path: string, action: HunkAction, hunks: Hunk[]): Promise<FileHunks>;
  };
  on<K extends EventName>(name: K, cb: (data: EventMap[K]) => void): () => void;
  onReconnect(cb: () => void): () => void;
  onConnection(cb: (s: ConnectionState) => void): () => void;
  openExternal(url: string): void;
  copyText(text: string): Promise<void>;
}

function arr<T>(x: unknown): T[] {
  return Array.isArray(x) ? (x as T[]) : [];
}

function obj<T>(x: unknown, method: string): T {
  if (!x || typeof x !== 'object') {
    throw new ApiError('internal', `The app answered ${method} without a result.`);
  }
  return x as T;
}

function fileHunks(x: unknown, method: string): FileHunks {
  const r = obj<FileHunks>(x, method);
  return { ...r, hunks: arr(r.hunks), reviews: arr(r.reviews) };
}

/** A WorkspaceInfo, or null for null/{} (no folder open; the mock answers {}). */
function info(x: unknown): WorkspaceInfo | null {
  if (!x || typeof x !== 'object' || typeof (x as WorkspaceInfo).dir !== 'string') return null;
  const w = x as WorkspaceInfo;
  return { ...w, recent: arr<string>(w.recent), canPick: !!w.canPick };
}

function buffer(x: unknown, method: string): BufferState {
  const b = obj<BufferState>(x, method);
  return { ...b, content: typeof b.content === 'string' ? b.content : '', dirty: !!b.dirty, version: Number(b.version) || 0 };
}

function syncStatus(x: unknown, method: string): SyncStatus {
  const s = obj<SyncStatus>(x, method);
  return { ...s, enabled: !!s.enabled, configured: !!s.configured, allowTitles: !!s.allowTitles, pending: Number(s.pending) || 0 };
}

function normalizeSnapshot(s: Snapshot): Snapshot {
  const t = s.thread ?? ({ entries: [], usage: { used: 0, size: 0 }, turn: 0 } as Snapshot['thread']);
  return {
    ...s,
    seq: typeof s.seq === 'number' ? s.seq : 0,
    pending: arr<PermissionRequest>(s.pending),
    questions: arr<ElicitationRequest>(s.questions),
    running: !!s.running,
    thread: { ...t, entries: arr(t.entries), usage: t.usage ?? { used: 0, size: 0 } },
  };
}

export function createClient(t: Transport): Client {
  const call = (method: string, args: Record<string, unknown> = {}) => t.call(method, args);
  return {
    transportKind: t.kind,
    ready: () => t.ready?.() ?? Promise.resolve(),
    agents: {
      list: async () => arr<Agent>(await call('agents.list')),
      check: async (name) => obj<AgentCheck>(await call('agents.check', { name }), 'agents.check'),
      running: async () => arr<RunningAgent>(await call('agents.running')),
      saveCustom: async (a) =>
        arr<Agent>(await call('agents.saveCustom', { name: a.name, command: a.command, args: a.args, env: a.env })),
      removeCustom: async (name) => arr<Agent>(await call('agents.removeCustom', { name })),
      listSessions: async (agent) => {
        const r = obj<AgentSessions>(await call('agents.listSessions', { agent }), 'agents.listSessions');
        return { ...r, sessions: arr(r.sessions) };
      },
      setKey: async (name, variable, value) => arr<Agent>(await call('agents.setKey', { name, var: variable, value })),
      setNotesTools: async (name, on) => arr<Agent>(await call('agents.setNotesTools', { name, on })),
      authenticate: async (name, method) => arr<Agent>(await call('agents.authenticate', { name, method })),
      logout: async (name) => arr<Agent>(await call('agents.logout', { name })),
      install: async (name) => obj<InstallStarted>(await call('agents.install', { name }), 'agents.install'),
      cancelInstall: async (name) => {
        await call('agents.cancelInstall', { name });
      },
      cancelStart: async (name) => {
        await call('agents.cancelStart', { name });
      },
      openTerminal: async (name, method) =>
        obj<TerminalOpened>(await call('agents.openTerminal', method ? { name, method } : { name }), 'agents.openTerminal'),
      registry: async (refresh) => {
        const r = obj<RegistryListing>(await call('agents.registry', refresh ? { refresh: true } : {}), 'agents.registry');
        return { ...r, agents: arr(r.agents) };
      },
      registryIcon: async (id) => obj<{ svg: string }>(await call('agents.registryIcon', { id }), 'agents.registryIcon').svg ?? '',
      registryInstall: async (id) => obj<InstallStarted>(await call('agents.registryInstall', { id }), 'agents.registryInstall'),
    },
    sessions: {
      list: async (args = {}) => arr<SessionSummary>(await call('sessions.list', args)),
      create: async (args) => obj<SessionSummary>(await call('sessions.create', args), 'sessions.create'),
      import: async (agent, agentSessionId, title) =>
        obj<SessionSummary>(
          await call('sessions.import', { agent, agentSessionId, ...(title ? { title } : {}) }),
          'sessions.import',
        ),
      open: async (id, page) => {
        const args: Record<string, unknown> = { id };
        if (page?.limit) args.limit = page.limit;
        if (page?.before) args.before = page.before;
        const s = normalizeSnapshot(obj<Snapshot>(await call('sessions.open', args), 'sessions.open'));
        return { ...s, earlier: typeof s.earlier === 'number' && s.earlier > 0 ? s.earlier : 0 };
      },
      prompt: async (id, text, extra) => {
        const args: Record<string, unknown> = { id, text };
        if (extra?.context) args.context = extra.context;
        if (extra?.mentions?.length) args.mentions = extra.mentions;
        if (extra?.images?.length) args.images = extra.images;
        if (extra?.share && (extra.share.thoughts || extra.share.toolSummaries)) args.share = extra.share;
        const r = (await call('sessions.prompt', args)) as { turn?: number } | undefined;
        return { turn: r?.turn ?? 0 };
      },
      image: async (sessionId, hash) => obj<ImageData>(await call('sessions.image', { sessionId, hash }), 'sessions.image'),
      fork: async (sessionId, turn, text, locale) =>
        obj<ForkResult>(await call('sessions.fork', locale ? { sessionId, turn, text, locale } : { sessionId, turn, text }), 'sessions.fork'),
      cancel: async (id) => void (await call('sessions.cancel', { id })),
      killTerminal: async (id, terminalId) => void (await call('sessions.killTerminal', { id, terminalId })),
      rename: async (id, title) => obj<SessionSummary>(await call('sessions.rename', { id, title }), 'sessions.rename'),
      delete: async (id, agentCopy) => void (await call('sessions.delete', agentCopy ? { id, agentCopy } : { id })),
      restore: async (id) => obj<SessionSummary>(await call('sessions.restore', { id }), 'sessions.restore'),
      trash: async () => arr<TrashedSession>(await call('sessions.trash', {})),
      purge: async (id) => void (await call('sessions.purge', { id })),
      search: async (query, limit) =>
        arr<Hit>(await call('sessions.search', limit === undefined ? { query } : { query, limit })),
      setMode: async (id, modeId) => void (await call('sessions.setMode', { id, modeId })),
      setConfigOption: async (id, configId, value) =>
        void (await call('sessions.setConfigOption', { id, configId, value })),
      setModel: async (id, modelId) => void (await call('sessions.setModel', { id, modelId })),
      switchAgent: async (id, agent) =>
        obj<SessionSummary>(await call('sessions.switchAgent', { id, agent }), 'sessions.switchAgent'),
      close: async (id) => void (await call('sessions.close', { id })),
      export: async (id, o) => {
        const args: Record<string, unknown> = { id, format: o.format };
        if (o.redact !== undefined) args.redact = o.redact;
        if (o.includeThoughts) args.includeThoughts = true;
        if (o.includeToolIO) args.includeToolIO = true;
        if (o.images) args.images = true;
        if (o.locale) args.locale = o.locale;
        if (o.strictBreaks) args.strictBreaks = true;
        const r = obj<Exported>(await call('sessions.export', args), 'sessions.export');
        return { ...r, content: typeof r.content === 'string' ? r.content : '', path: r.path || undefined };
      },
    },
    sync: {
      status: async () => syncStatus(await call('sync.status'), 'sync.status'),
      configure: async (c) => {
        const args: Record<string, unknown> = { url: c.url, allowTitles: c.allowTitles };
        if (c.token !== undefined) args.token = c.token;
        return syncStatus(await call('sync.configure', args), 'sync.configure');
      },
      enable: async (on) => syncStatus(await call('sync.enable', { on }), 'sync.enable'),
      allowTitles: async (allow) => syncStatus(await call('sync.allowTitles', { allow }), 'sync.allowTitles'),
      now: async () => syncStatus(await call('sync.now'), 'sync.now'),
      removeMyData: async () => {
        const r = obj<RemovedData>(await call('sync.removeMyData'), 'sync.removeMyData');
        return { sessions: Number(r.sessions) || 0, shares: Number(r.shares) || 0 };
      },
    },
    shared: sharedClient(call),
    shares: {
      publish: async (id, o = {}) => {
        const args: Record<string, unknown> = { id };
        if (o.expiresInDays) args.expiresInDays = o.expiresInDays;
        if (o.includeThoughts) args.includeThoughts = true;
        if (o.includeToolIO) args.includeToolIO = true;
        if (o.strictBreaks) args.strictBreaks = true;
        return obj<Share>(await call('shares.publish', args), 'shares.publish');
      },
      list: async () => arr<Share>(await call('shares.list')),
      revoke: async (id) => void (await call('shares.revoke', { id })),
    },
    elicitations: {
      answer: async (sessionId, requestId, action, content) =>
        void (await call('elicitations.answer', { sessionId, requestId, action, ...(content ? { content } : {}) })),
    },
    permissions: {
      decide: async (sessionId, requestId, optionId) =>
        void (await call('permissions.decide', { sessionId, requestId, optionId })),
      rules: async () => arr<PermissionRule>(await call('permissions.rules')),
      revoke: async (r) => void (await call('permissions.revoke', { agent: r.agent, workspace: r.workspace, toolKind: r.toolKind })),
    },
    workspace: {
      get: async () => info(await call('workspace.get')),
      open: async (dir) => {
        const w = info(await call('workspace.open', { dir }));
        if (!w) throw new ApiError('internal', 'The app answered workspace.open without a folder.');
        return w;
      },
      pick: async (locale) => info(await call('workspace.pick', locale ? { locale } : undefined)),
      tree: async (args = {}) => {
        const n = obj<TreeNode>(await call('workspace.tree', args), 'workspace.tree');
        return { ...n, name: n.name ?? '', path: n.path ?? '', dir: true, children: arr<TreeNode>(n.children) };
      },
      find: async (query, limit) =>
        arr<FindHit>(await call('workspace.find', limit === undefined ? { query } : { query, limit })),
    },
    files: {
      open: async (path) => buffer(await call('files.open', { path }), 'files.open'),
      update: async (path, content) => buffer(await call('files.update', { path, content }), 'files.update'),
      save: async (path, content) => buffer(await call('files.save', { path, content }), 'files.save'),
      close: async (path) => void (await call('files.close', { path })),
      diff: async (path) => {
        const r = (await call('files.diff', { path })) as { diff?: string } | undefined;
        return typeof r?.diff === 'string' ? r.diff : '';
      },
      resolve: async (path, take) => buffer(await call('files.resolve', { path, take }), 'files.resolve'),
      create: async (path, dir) => void (await call('files.create', dir ? { path, dir: true } : { path })),
      rename: async (from, to) => void (await call('files.rename', { from, to })),
      delete: async (path) => {
        const r = (await call('files.delete', { path })) as { trash?: Trashed } | undefined;
        return r?.trash ?? {};
      },
      restore: async (trash) => void (await call('files.restore', { trash })),
      attach: async (path, data) => obj<Attached>(await call('files.attach', { path, data }), 'files.attach'),
      image: async (path) => obj<ImageData>(await call('files.image', { path }), 'files.image'),
      openInApp: async (path) => void (await call('files.openInApp', { path })),
    },
    notes: {
      status: async () => obj<NotesIndexStatus>(await call('notes.status'), 'notes.status'),
      search: async (query, o = {}) => {
        const args: Record<string, unknown> = { query };
        if (o.folder) args.folder = o.folder;
        if (o.limit) args.limit = o.limit;
        if (o.lines) args.lines = o.lines;
        return arr<NoteHit>(await call('notes.search', args));
      },
      tags: async () => arr<TagCount>(await call('notes.tags', {})),
      titles: async () => arr<NoteTitle>(await call('notes.titles', {})),
      headings: async (query, limit) =>
        arr<NoteHeading>(await call('notes.headings', limit === undefined ? { query } : { query, limit })),
      outline: async (path) => arr<NoteHeading>(await call('notes.outline', { path })),
      read: async (path, heading) => {
        const r = obj<NoteText>(await call('notes.read', heading ? { path, heading } : { path }), 'notes.read');
        return { ...r, text: typeof r.text === 'string' ? r.text : '' };
      },
      links: async (path) => arr<NoteLink>(await call('notes.links', { path })),
      backlinks: async (path) => arr<NoteLink>(await call('notes.backlinks', { path })),
      unresolved: async (path) => arr<NoteLink>(await call('notes.unresolved', path ? { path } : {})),
      resolve: async (from, target, wiki) => {
        const r = (await call('notes.resolve', { from, target, wiki })) as { path?: string } | undefined;
        return typeof r?.path === 'string' ? r.path : '';
      },
      updateLinks: async (from, to, dryRun) => {
        const r = obj<LinksUpdated>(await call('notes.updateLinks', dryRun ? { from, to, dryRun: true } : { from, to }), 'notes.updateLinks');
        return { ...r, changed: arr<string>(r.changed), links: Number(r.links) || 0, skipped: arr<string>(r.skipped) };
      },
      undoUpdateLinks: async (undo) => {
        const r = (await call('notes.undoUpdateLinks', { undo })) as { restored?: string[] } | undefined;
        return arr<string>(r?.restored);
      },
    },
    checkpoints: {
      list: async (sessionId) =>
        arr<TurnChanges>(await call('checkpoints.list', { sessionId })).map((t) => ({ ...t, files: arr(t.files) })),
      changes: async (sessionId, turn) => arr<FileDiff>(await call('checkpoints.changes', { sessionId, turn })),
      revert: async (sessionId, turn) => {
        const r = obj<RevertResult>(await call('checkpoints.revert', { sessionId, turn }), 'checkpoints.revert');
        return { ...r, restored: arr(r.restored), deleted: arr(r.deleted), skipped: arr(r.skipped) };
      },
      undoRevert: async (sessionId, turn) => {
        const r = obj<RevertResult>(await call('checkpoints.undoRevert', { sessionId, turn }), 'checkpoints.undoRevert');
        return { ...r, restored: arr(r.restored), deleted: arr(r.deleted), skipped: arr(r.skipped) };
      },
      hunks: async (sessionId, turn, path) => fileHunks(await call('checkpoints.hunks', { sessionId, turn, path }), 'checkpoints.hunks'),
      review: async (sessionId, turn, path, action, hunks) =>
        fileHunks(await call('checkpoints.review', { sessionId, turn, path, action, hunks }), 'checkpoints.review'),
    },
    on: (name, cb) => t.on(name, cb as (d: unknown) => void),
    onReconnect: (cb) => t.onReconnect(cb),
    onConnection: (cb) => t.onConnection(cb),
    openExternal: (url) => t.openExternal(url),
    copyText: (text) => t.copyText(text),
  };
}

let current: Client | null = null;

/** The app's client, built on first use from the environment. */
export function getClient(): Client {
  return (current ??= createClient(pickTransport()));
}

/** Replaces the app's client (tests, or a future second window). */
export function setClient(c: Client | null): void {
  current = c;
}
