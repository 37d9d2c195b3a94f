// A fake Go side, for working on the UI without Go and for measuring it:
// implements the app API (app/API.md) in memory and installs itself as the
// Wails bridge (window.go.desktop.Bridge + window.runtime.EventsOn).
//
//   npm run dev:mock                      the demo data, in the dev server
//   vite build --mode mock                the same, built
//   VITE_MOCK_SCENARIO=perf …             a 20,000-entry session; sending a
//                                         prompt streams 50,000 chunks and the
//                                         frame times go to document.title
//   VITE_MOCK_SCENARIO=tree10k …          a workspace of 10,000 notes in
//                                         1,000 folders (dev/mockfs.ts)
//
// The workspace (tree, buffers, checkpoints) lives in dev/mockfs.ts; the
// demo turn's edit is an agent write (the open editor and the tree follow,
// the turn gets a checkpoint), and window.__mockfs makes external edits.
//
// Never part of a normal build (main.ts imports it only in mode "mock").

import type {
  Agent,
  Entry,
  Hit,
  PermissionRequest,
  SessionSummary,
  Share,
  ThreadEvent,
  Usage,
} from '../src/api/types';
import { MockFS } from './mockfs';

type Listener = (data: unknown) => void;

interface MockSession {
  summary: SessionSummary;
  entries: Entry[];
  seq: number;
  pending: PermissionRequest[];
  running: boolean;
  usage: Usage;
  currentModeId: string;
  turn: number;
  waiters: Map<string, (optionId: string) => void>;
}

const scenario = (import.meta.env.VITE_MOCK_SCENARIO as string | undefined) ?? 'demo';
const listeners = new Map<string, Set<Listener>>();
const sessions = new Map<string, MockSession>();
const now = Date.now();
let ids = 0;

function emit(name: string, data: unknown) {
  for (const cb of listeners.get(name) ?? []) cb(data);
}

function emitThread(s: MockSession, type: ThreadEvent['type'], payload: unknown) {
  s.seq++;
  emit('thread:event', { sessionId: s.summary.id, seq: s.seq, type, payload });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const agents: Agent[] = [
  { name: 'claude', title: 'Claude Code', command: 'claude-code-acp', args: [], builtin: true, notesTools: true, status: 'ready', path: '/usr/local/bin/claude-code-acp' },
  { name: 'codex', title: 'Codex', command: 'codex-acp', args: [], builtin: true, notesTools: true, status: 'missing', hint: 'npm install -g @zed-industries/codex-acp' },
  {
    name: 'gemini',
    title: 'Gemini CLI',
    command: 'gemini',
    args: ['--experimental-acp'],
    builtin: true,
    notesTools: true,
    status: 'needs_login',
    loginHint: 'run `gemini` once and log in with Google, or give a Gemini API key',
    keyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  },
  { name: 'goose', title: 'goose', command: 'goose', args: ['acp'], builtin: true, notesTools: true, status: 'ready', path: '/usr/bin/goose' },
  {
    name: 'my-agent',
    title: 'my-agent',
    command: '/opt/my-agent/bin/agent',
    args: ['--acp'],
    builtin: false,
    notesTools: false,
    status: 'failed',
    error: 'initialize timed out after 30s',
    stderrTail: 'loading model…\nerror: CUDA not available\n',
  },
];

const MODES = [
  { id: 'default', name: 'Ask before edits' },
  { id: 'acceptEdits', name: 'Accept edits' },
  { id: 'plan', name: 'Plan only' },
];

const CONFIG = [
  {
    id: 'model',
    name: 'Model',
    category: 'model',
    type: 'select',
    currentValue: 'sonnet',
    options: [
      { value: 'sonnet', name: 'Sonnet' },
      { value: 'opus', name: 'Opus' },
      { value: 'haiku', name: 'Haiku' },
    ],
  },
];

const COMMANDS = [
  { name: 'review', description: 'Review the current changes' },
  { name: 'summarize', description: 'Summarize a note', input: { hint: 'path of the note' } },
  { name: 'init', description: 'Create an AGENTS.md for this workspace' },
  { name: 'compact', description: 'Compact the conversation' },
];

const ANSWER = `Here is what I changed in **notes/index.md**:

1. Grouped the notes by topic.
2. Fixed two broken links ([gardening](notes/gardening.md) and [rust](https://www.rust-lang.org)).
3. Added a table of contents.

\`\`\`go
// Index builds the table of contents.
func Index(notes []Note) string {
	var b strings.Builder
	for _, n := range notes {
		fmt.Fprintf(&b, "- [%s](%s)\\n", n.Title, n.Path)
	}
	return b.String()
}
\`\`\`

| Topic | Notes |
|---|---|
| Garden | 4 |
| Code | 11 |

> Raw HTML stays text: <img src=x onerror=alert(1)> and <script>alert(1)</script>.

- [x] grouped
- [ ] ask about the archive folder`;

function summary(id: string, title: string, agent: string, ageMin: number, extra: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    title,
    workspace: '/home/me/notes',
    agent,
    createdMs: now - ageMin * 60_000 - 3_600_000,
    updatedMs: now - ageMin * 60_000,
    status: 'ready',
    turns: 3,
    lastStopReason: 'end_turn',
    live: false,
    ...extra,
  };
}

function entry(kind: string, turn: number, extra: Partial<Entry> = {}): Entry {
  const id = 'e' + ++ids;
  return { id, kind, turn, createdMs: now, ...extra };
}

function demoEntries(): Entry[] {
  ids = 0;
  return [
    entry('user_message', 1, { text: 'Tidy up notes/index.md: group by topic and fix the broken links.' }),
    entry('thought', 1, { text: 'The user wants the index grouped. I should **read** the file first, then list the notes folder.' }),
    entry('tool_call', 1, {
      toolCall: {
        id: 'e3', toolCallId: 't1', title: 'Read notes/index.md', kind: 'read', status: 'completed',
        locations: [{ path: '/home/me/notes/notes/index.md' }], startedMs: now - 4000, endedMs: now - 3900,
        content: [{ type: 'content', content: { type: 'text', text: '# Index\n- gardening\n- rust\n- taxes' } }],
      },
    }),
    entry('tool_call', 1, {
      toolCall: {
        id: 'e4', toolCallId: 't2', title: 'ls notes', kind: 'execute', status: 'completed',
        rawInput: { command: 'ls notes' }, startedMs: now - 3800, endedMs: now - 3500,
        content: [{ type: 'content', content: { type: 'text', text: 'gardening.md\nrust.md\ntaxes-2025.md\narchive/' } }],
      },
    }),
    entry('tool_call', 1, {
      toolCall: {
        id: 'e5', toolCallId: 't3', title: 'Edit notes/index.md', kind: 'edit', status: 'completed', decision: 'allow_once',
        locations: [{ path: '/home/me/notes/notes/index.md', line: 1 }], startedMs: now - 3000, endedMs: now - 2000,
        content: [{ type: 'diff', path: '/home/me/notes/notes/index.md', oldText: '# Index\n- gardening\n- rust\n- taxes\n', newText: '# Index\n\n## Garden\n- [gardening](gardening.md)\n\n## Code\n- [rust](rust.md)\n\n## Admin\n- [taxes](taxes-2025.md)\n' }],
      },
    }),
    entry('plan', 1, {
      plan: [
        { content: 'Read the index', status: 'completed' },
        { content: 'Group notes by topic', status: 'completed', priority: 'high' },
        { content: 'Fix broken links', status: 'completed' },
        { content: 'Ask about the archive folder', status: 'pending' },
      ],
    }),
    entry('assistant_message', 1, { text: ANSWER }),
  ];
}

function perfEntries(n: number): Entry[] {
  ids = 0;
  const out: Entry[] = [];
  let turn = 0;
  for (let i = 0; out.length < n; i++) {
    turn++;
    out.push(entry('user_message', turn, { text: `Question ${turn}: what about item ${i}?` }));
    out.push(entry('thought', turn, { text: `Thinking about item ${i}…` }));
    out.push(
      entry('tool_call', turn, {
        toolCall: { id: 'e' + (ids + 1), toolCallId: 'tc' + i, title: `Read notes/n${i}.md`, kind: 'read', status: 'completed', startedMs: now, endedMs: now + 120 },
      }),
    );
    out.push(entry('assistant_message', turn, { text: i % 5 === 0 ? ANSWER : `Answer **${i}**: see \`notes/n${i}.md\`, line ${i % 97}.\n\n- one\n- two` }));
  }
  return out.slice(0, n);
}

function newSession(s: SessionSummary, entries: Entry[] = []): MockSession {
  return {
    summary: s,
    entries,
    seq: 0,
    pending: [],
    running: false,
    usage: { used: 48_200, size: 200_000, cost: { amount: 0.1432, currency: 'USD' }, sessionTokens: { inputTokens: 40_100, outputTokens: 8_100 } },
    currentModeId: 'default',
    turn: 1,
    waiters: new Map(),
  };
}

function seed() {
  if (scenario === 'perf') {
    const s = newSession(summary('perf', '20,000 entries', 'claude', 1, { live: true }), perfEntries(20_000));
    sessions.set('perf', s);
  } else {
    sessions.set('s1', newSession(summary('s1', 'Tidy up the notes index', 'claude', 2, { live: true }), demoEntries()));
  }
  const titles = ['Garden plan for spring', 'Rust lifetimes cheat sheet', 'Taxes 2025 checklist', 'Weekly review', 'Untangle the archive'];
  titles.forEach((t, i) => sessions.set('s' + (i + 2), newSession(summary('s' + (i + 2), t, i % 2 ? 'goose' : 'claude', 60 * (i + 1) * (i + 1)))));
}
seed();

function snapshotOf(s: MockSession) {
  return {
    session: s.summary,
    seq: s.seq,
    thread: {
      entries: s.entries,
      title: s.summary.title,
      usage: s.usage,
      currentModeId: s.currentModeId,
      modes: MODES,
      configOptions: CONFIG,
      commands: COMMANDS,
      turn: s.turn,
    },
    pending: s.pending,
    running: s.running,
  };
}

function list(): SessionSummary[] {
  return [...sessions.values()].map((s) => s.summary).sort((a, b) => b.updatedMs - a.updatedMs);
}

function fail(code: string, message: string, details?: string): never {
  throw JSON.stringify({ code, message, details });
}

const mockfs = new MockFS(emit, fail, scenario);
(window as unknown as { __mockfs: unknown }).__mockfs = {
  external: (path: string, content: string) => mockfs.external(path, content),
  remove: (path: string) => mockfs.externalRemove(path),
  agentWrite: (path: string, content: string) => mockfs.agentWrite('s1', 1, path, content),
  read: (path: string) => mockfs.files.get(path),
};

function get(id: unknown): MockSession {
  const s = sessions.get(String(id));
  if (!s) fail('not_found', 'No such session.');
  return s;
}

// ---- a simulated turn --------------------------------------------------------

async function stream(s: MockSession, e: Entry, text: string, chunk = 6, delay = 16) {
  for (let i = 0; i < text.length; i += chunk) {
    const delta = text.slice(i, i + chunk);
    e.text = (e.text ?? '') + delta;
    emitThread(s, 'append', { entryId: e.id, delta });
    await sleep(delay);
  }
}

function upsert(s: MockSession, e: Entry) {
  const i = s.entries.findIndex((x) => x.id === e.id);
  if (i >= 0) s.entries[i] = e;
  else s.entries.push(e);
  emitThread(s, 'entry', structuredClone(e));
}

/** What the prompt carried besides its text, said back (to see it in the UI). */
function carried(args: Record<string, unknown>): string {
  const ctx = args.context as { path?: string; selection?: { fromLine: number; toLine: number } } | undefined;
  const mentions = (args.mentions as string[] | undefined) ?? [];
  const parts: string[] = [];
  if (ctx?.path) parts.push(`context \`${ctx.path}\`${ctx.selection ? ` (lines ${ctx.selection.fromLine}–${ctx.selection.toLine})` : ''}`);
  if (mentions.length) parts.push(`mentions ${mentions.map((m) => '`' + m + '`').join(', ')}`);
  return parts.length ? `You sent me ${parts.join(' and ')}.\n\n` : '';
}

async function demoTurn(s: MockSession, text: string, args: Record<string, unknown> = {}) {
  s.running = true;
  s.turn++;
  ids = s.entries.length;
  emitThread(s, 'turn', { state: 'running', turn: s.turn });
  upsert(s, entry('user_message', s.turn, { text }));
  await sleep(300);
  const th = entry('thought', s.turn, { text: '', streaming: true });
  upsert(s, th);
  await stream(s, th, 'I should look at the notes folder first, then propose a change and ask before writing.', 4, 20);
  th.streaming = false;
  const read = entry('tool_call', s.turn, {
    toolCall: { id: '', toolCallId: 'r' + s.turn, title: 'Read notes/garden.md', kind: 'read', status: 'in_progress', startedMs: Date.now(), locations: [{ path: '/home/me/notes/notes/garden.md' }] },
  });
  read.toolCall!.id = read.id;
  upsert(s, read);
  await sleep(700);
  read.toolCall = { ...read.toolCall!, status: 'completed', endedMs: Date.now(), content: [{ type: 'content', content: { type: 'text', text: '# Garden\n- tomatoes\n- basil' } }] };
  upsert(s, read);

  const edit = entry('tool_call', s.turn, {
    toolCall: {
      id: '', toolCallId: 'w' + s.turn, title: 'Edit notes/garden.md', kind: 'edit', status: 'awaiting_permission', startedMs: Date.now(),
      locations: [{ path: '/home/me/notes/notes/garden.md', line: 3 }],
      content: [{ type: 'diff', path: '/home/me/notes/notes/garden.md', oldText: '# Garden\n- tomatoes\n- basil\n', newText: '# Garden\n- tomatoes\n- basil\n- chili peppers\n- <b>not bold</b>\n' }],
    },
  });
  edit.toolCall!.id = edit.id;
  upsert(s, edit);
  const req: PermissionRequest = {
    requestId: 'p' + s.turn,
    toolCallId: edit.toolCall!.toolCallId,
    title: 'Edit notes/garden.md',
    kind: 'edit',
    options: [
      { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'always', name: 'Always allow edits', kind: 'allow_always' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ],
    toolCall: { toolCallId: edit.toolCall!.toolCallId, content: edit.toolCall!.content, locations: edit.toolCall!.locations },
  };
  s.pending.push(req);
  emitThread(s, 'permission', req);
  const optionId = await new Promise<string>((res) => s.waiters.set(req.requestId, res));
  s.pending = s.pending.filter((p) => p.requestId !== req.requestId);
  emitThread(s, 'permission_resolved', { requestId: req.requestId, optionId });
  const opt = req.options.find((o) => o.optionId === optionId);
  const ok = !!opt && opt.kind.startsWith('allow');
  if (ok) {
    const cur = mockfs.files.get('notes/garden.md') ?? '# Garden\n';
    mockfs.agentWrite(s.summary.id, s.turn, 'notes/garden.md', cur.replace(/\n?$/, '\n') + '- chili peppers\n');
  }
  edit.toolCall = { ...edit.toolCall!, status: ok ? 'completed' : 'rejected', decision: opt?.kind ?? 'cancelled', endedMs: Date.now() };
  upsert(s, edit);

  upsert(s, entry('plan', s.turn, { plan: [{ content: 'Read the garden note', status: 'completed' }, { content: 'Add chili peppers', status: ok ? 'completed' : 'pending' }] }));
  const msg = entry('assistant_message', s.turn, { text: '', streaming: true });
  upsert(s, msg);
  await stream(s, msg, carried(args) + (ok ? ANSWER : 'Understood, I left the note as it was.'), 7, 16);
  msg.streaming = false;
  s.usage = { ...s.usage, used: s.usage.used + 3100 };
  emitThread(s, 'meta', { usage: s.usage });
  s.running = false;
  emitThread(s, 'turn', { state: 'ended', turn: s.turn, stopReason: 'end_turn' });
  s.summary = { ...s.summary, updatedMs: Date.now(), turns: s.turn };
  emit('sessions:changed', {});
}

/** 50,000 chunks as fast as Go would send them (coalesced every ~16 ms:
 * here 50 appends per tick, each its own event), with frame times measured. */
async function perfTurn(s: MockSession) {
  s.running = true;
  s.turn++;
  ids = s.entries.length;
  emitThread(s, 'turn', { state: 'running', turn: s.turn });
  upsert(s, entry('user_message', s.turn, { text: 'Stream 50,000 chunks, please.' }));
  const msg = entry('assistant_message', s.turn, { text: '', streaming: true });
  upsert(s, msg);

  const frames: number[] = [];
  let last = performance.now();
  let measuring = true;
  const tickFrame = (t: number) => {
    frames.push(t - last);
    last = t;
    if (measuring) requestAnimationFrame(tickFrame);
  };
  requestAnimationFrame(tickFrame);

  const words = ['alpha ', 'beta ', '`code` ', '**bold** ', 'gamma\n\n', 'delta ', 'epsilon ', 'zeta '];
  const t0 = performance.now();
  for (let i = 0; i < 50_000; ) {
    for (let k = 0; k < 50 && i < 50_000; k++, i++) {
      const delta = i % 400 === 399 ? '\n\n```go\nfunc f() {}\n```\n\n' : words[i % words.length];
      msg.text += delta;
      emitThread(s, 'append', { entryId: msg.id, delta });
    }
    await sleep(16);
  }
  const streamMs = performance.now() - t0;
  msg.streaming = false;
  upsert(s, msg);
  s.running = false;
  emitThread(s, 'turn', { state: 'ended', turn: s.turn, stopReason: 'end_turn' });
  await sleep(500);
  measuring = false;

  const sorted = [...frames].sort((a, b) => a - b);
  const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
  const long = frames.filter((f) => f > 50).length;
  const opened = (window as unknown as { __perfOpen?: string }).__perfOpen ?? '';
  const report = `PERF ${opened} stream=${(streamMs / 1000).toFixed(1)}s frames=${frames.length} p50=${p(0.5)}ms p95=${p(0.95)}ms p99=${p(0.99)}ms max=${sorted[sorted.length - 1].toFixed(0)}ms long(>50ms)=${long} textKB=${Math.round((msg.text?.length ?? 0) / 1024)} dom=${document.getElementsByTagName('*').length}`;
  show(report);
}

// ---- the bridge ------------------------------------------------------------------

async function call(method: string, args: Record<string, unknown>): Promise<unknown> {
  await sleep(scenario === 'perf' ? 0 : 30);
  switch (method) {
    case 'agents.list':
      return agents;
    case 'agents.check': {
      const a = agents.find((x) => x.name === args.name);
      if (!a) fail('not_found', 'No such agent.');
      if (a.status === 'missing') fail('agent_missing', `${a.title} is not installed.`, a.hint);
      await sleep(600);
      const authMethods =
        a.status === 'needs_login'
          ? [
              { id: 'oauth-personal', name: 'Log in with Google', description: 'a browser window opens', command: `${a.command} --login` },
              { id: 'gemini-api-key', name: 'Use a Gemini API key', envVars: ['GEMINI_API_KEY'] },
            ]
          : [];
      return { name: a.name, agentName: a.title, agentVersion: '1.4.2', protocol: 1, loadSession: true, authMethods, startMs: 843 };
    }
    case 'agents.setNotesTools': {
      const a = agents.find((x) => x.name === args.name);
      if (!a) fail('agent_missing', `there is no agent named "${String(args.name)}"`);
      a.notesTools = !!args.on;
      return agents;
    }
    case 'agents.setKey': {
      const a = agents.find((x) => x.name === args.name);
      if (!a) fail('agent_missing', `there is no agent named "${String(args.name)}"`);
      const v = String(args.var ?? '');
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) fail('bad_request', `set agent key: "${v}" is not an environment variable name`);
      const keys = new Set(a.keys ?? []);
      if (args.value) keys.add(v);
      else keys.delete(v);
      a.keys = [...keys].sort();
      if (a.status === 'needs_login' && keys.size) a.status = 'ready';
      return agents;
    }
    case 'agents.openTerminal': {
      const a = agents.find((x) => x.name === args.name);
      if (!a) fail('agent_missing', `there is no agent named "${String(args.name)}"`);
      return fail('bad_request', 'there is no display to open a terminal on: run this yourself', `${a.command} --login`);
    }
    case 'sessions.export':
      return mockExport(args);
    case 'sync.status':
      return syncStatus();
    case 'sync.configure':
      return syncConfigure(args);
    case 'sync.enable':
      return syncEnable(!!args.on);
    case 'sync.allowTitles':
      mockSync.allowTitles = !!args.allow;
      return syncStatus();
    case 'sync.now':
      if (!mockSync.enabled) fail('bad_request', "sync is off; turn it on with 'mnote sync on'");
      mockSync.pending = 0;
      mockSync.lastSync = new Date().toISOString();
      return syncStatus();
    case 'sync.removeMyData': {
      if (!mockSync.url || !mockSync.token) fail('bad_request', "sync is not set up; run 'mnote sync set --url URL --token-stdin' first");
      const r = { sessions: sessions.size, shares: mockShares.length };
      mockShares.length = 0;
      mockSync.enabled = false;
      mockSync.lastSync = '';
      return r;
    }
    case 'shares.publish':
      return sharePublish(args);
    case 'shares.list':
      if (!mockSync.url || !mockSync.token) fail('bad_request', "sync is not set up; run 'mnote sync set --url URL --token-stdin' first");
      return mockShares;
    case 'shares.revoke': {
      const i = mockShares.findIndex((x) => x.id === args.id);
      if (i < 0) fail('bad_request', `revoke share ${String(args.id)}: not found`);
      mockShares.splice(i, 1);
      return null;
    }
    case 'agents.saveCustom': {
      const i = agents.findIndex((x) => x.name === args.name);
      const a: Agent = { name: String(args.name), title: String(args.name), command: String(args.command), args: (args.args as string[]) ?? [], env: args.env as Record<string, string>, builtin: false, notesTools: true, status: 'ready' };
      if (i >= 0) agents[i] = a;
      else agents.push(a);
      return agents;
    }
    case 'agents.removeCustom': {
      const i = agents.findIndex((x) => x.name === args.name && !x.builtin);
      if (i >= 0) agents.splice(i, 1);
      return agents;
    }
    case 'sessions.list':
      return list().slice(Number(args.offset ?? 0), Number(args.offset ?? 0) + Number(args.limit ?? 200));
    case 'sessions.create': {
      const a = agents.find((x) => x.name === args.agent);
      if (!a) fail('not_found', 'No such agent.');
      if (a.status === 'missing') fail('agent_missing', `${a.title} is not installed.`, a.hint);
      if (a.status === 'needs_login') fail('needs_auth', `${a.title} needs you to sign in.`);
      if (a.status === 'failed') fail('agent_failed', `${a.title} failed to start.`, a.stderrTail);
      const id = 'n' + Date.now();
      const s = newSession(summary(id, '', a.name, 0, { status: 'new', live: true, turns: 0 }));
      s.usage = { used: 0, size: 200_000 };
      s.turn = 0;
      sessions.set(id, s);
      setTimeout(() => emit('sessions:changed', {}), 50);
      return s.summary;
    }
    case 'sessions.open':
      return snapshotOf(get(args.id));
    case 'sessions.prompt': {
      const s = get(args.id);
      if (s.running) fail('busy', 'A turn is already running.');
      if (!s.summary.title) s.summary = { ...s.summary, title: String(args.text).slice(0, 48) };
      void (scenario === 'perf' ? perfTurn(s) : demoTurn(s, String(args.text), args));
      return { turn: s.turn + 1 };
    }
    case 'sessions.cancel': {
      const s = get(args.id);
      for (const [rid, w] of s.waiters) {
        s.waiters.delete(rid);
        w('');
      }
      return {};
    }
    case 'sessions.rename': {
      const s = get(args.id);
      s.summary = { ...s.summary, title: String(args.title) };
      emit('sessions:changed', {});
      return s.summary;
    }
    case 'sessions.delete':
      get(args.id);
      deleted.set(String(args.id), sessions.get(String(args.id))!);
      sessions.delete(String(args.id));
      return {};
    case 'sessions.restore': {
      const s = deleted.get(String(args.id));
      if (!s) fail('not_found', 'Not in the trash.');
      sessions.set(s.summary.id, s);
      deleted.delete(s.summary.id);
      return s.summary;
    }
    case 'sessions.search': {
      const q = String(args.query).toLowerCase();
      const hits: Hit[] = [];
      for (const s of sessions.values()) {
        for (const e of s.entries) {
          const t = e.text ?? '';
          const i = t.toLowerCase().indexOf(q);
          if (i < 0) continue;
          const start = Math.max(0, i - 30);
          const snippet = (start > 0 ? '…' : '') + t.slice(start, i) + '«' + t.slice(i, i + q.length) + '»' + t.slice(i + q.length, i + q.length + 50) + '…';
          hits.push({ sessionId: s.summary.id, title: s.summary.title, turn: e.turn, role: e.kind === 'user_message' ? 'user' : 'assistant', entry: e.id, entries: [e.id], snippet });
          if (hits.length >= Number(args.limit ?? 50)) return hits;
        }
      }
      return hits;
    }
    case 'sessions.setMode':
      get(args.id).currentModeId = String(args.modeId);
      return {};
    case 'sessions.setConfigOption':
    case 'sessions.setModel':
      return {};
    case 'agents.running':
      return [];
    case 'sessions.switchAgent': {
      const s = get(args.id);
      s.summary = { ...s.summary, agent: String(args.agent) };
      return s.summary;
    }
    case 'sessions.close':
      return {};
    case 'workspace.get':
      return mockfs.get();
    case 'workspace.open':
      return mockfs.open(args.dir);
    case 'workspace.pick':
      return fail('bad_request', 'There is no folder dialog here: type the folder’s path.');
    case 'workspace.tree':
      return mockfs.tree(!!args.all);
    case 'workspace.find':
      return mockfs.find(args.query, args.limit);
    case 'files.open':
      return mockfs.fileOpen(args.path);
    case 'files.update':
      return mockfs.update(args.path, args.content);
    case 'files.save':
      return mockfs.save(args.path, args.content);
    case 'files.close':
      mockfs.close(args.path);
      return {};
    case 'files.diff':
      return { diff: mockfs.diff(args.path) };
    case 'files.resolve':
      return mockfs.resolve(args.path, args.take);
    case 'files.create':
      mockfs.create(args.path, args.dir);
      return {};
    case 'files.rename':
      mockfs.rename(args.from, args.to);
      return {};
    case 'files.delete':
      return mockfs.remove(args.path);
    case 'files.restore':
      mockfs.restore(args.trash);
      return {};
    case 'checkpoints.list':
      return mockfs.cpList(args.sessionId);
    case 'checkpoints.changes':
      return mockfs.cpChanges(args.sessionId, args.turn);
    case 'checkpoints.revert':
      return mockfs.cpRevert(args.sessionId, args.turn);
    case 'permissions.rules':
      return [];
    case 'permissions.revoke':
      return {};
    case 'permissions.decide': {
      const s = get(args.sessionId);
      const w = s.waiters.get(String(args.requestId));
      if (!w) fail('not_found', 'That request was already answered.');
      s.waiters.delete(String(args.requestId));
      w(String(args.optionId));
      return {};
    }
    default:
      fail('bad_request', `Unknown method ${method}.`);
  }
}

const deleted = new Map<string, MockSession>();

// ---- sync, shares, exports (in memory; nothing leaves the page) ---------------------

const mockSync = { url: '', token: '', enabled: false, allowTitles: false, pending: 0, lastSync: '' };
const mockShares: Share[] = [];

function syncStatus() {
  return {
    enabled: mockSync.enabled,
    configured: !!(mockSync.url && mockSync.token),
    ...(mockSync.url ? { url: mockSync.url } : {}),
    allowTitles: mockSync.allowTitles,
    ...(mockSync.lastSync ? { lastSync: mockSync.lastSync } : {}),
    pending: mockSync.pending,
  };
}

function syncConfigure(args: Record<string, unknown>) {
  const url = String(args.url ?? '').trim().replace(/\/$/, '');
  if (!/^https:\/\/[^/]+|^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?/.test(url)) {
    fail('bad_request', `control plane URL "${url}": must start with https://`);
  }
  mockSync.url = url;
  if (typeof args.token === 'string') mockSync.token = args.token;
  mockSync.allowTitles = !!args.allowTitles;
  return syncStatus();
}

function syncEnable(on: boolean) {
  if (on && !(mockSync.url && mockSync.token)) fail('bad_request', "sync is not set up; run 'mnote sync set --url URL --token-stdin' first");
  mockSync.enabled = on;
  if (on) {
    // The worker sends every record over a few seconds.
    mockSync.pending = sessions.size;
    const tick = () => {
      if (!mockSync.enabled || mockSync.pending <= 0) return;
      mockSync.pending--;
      mockSync.lastSync = new Date().toISOString();
      setTimeout(tick, 700);
    };
    setTimeout(tick, 700);
  }
  return syncStatus();
}

function sharePublish(args: Record<string, unknown>) {
  get(args.id);
  if (!mockSync.enabled) fail('bad_request', "publish: publish a share: sync is off; turn it on with 'mnote sync on'");
  const token = Math.random().toString(36).slice(2, 14);
  const days = Number(args.expiresInDays ?? 0);
  const share: Share = {
    id: 'shr_' + token.slice(0, 6),
    token,
    url: `${mockSync.url}/s/${token}`,
    sessionId: String(args.id),
    createdAt: new Date().toISOString(),
    ...(days > 0 ? { expiresAt: new Date(Date.now() + days * 86_400_000).toISOString() } : {}),
  };
  mockShares.unshift(share);
  return share;
}

function mockExport(args: Record<string, unknown>) {
  const s = get(args.id);
  const format = String(args.format);
  const mime = ({ md: 'text/markdown', html: 'text/html', jsonl: 'application/x-ndjson' } as Record<string, string>)[format];
  if (!mime) fail('bad_request', `format must be md, html or jsonl, not "${format}"`);
  const text = s.entries
    .filter((e) => e.kind === 'user_message' || e.kind === 'assistant_message' || (args.includeThoughts && e.kind === 'thought'))
    .map((e) => (format === 'jsonl' ? JSON.stringify(e) : `## ${e.kind === 'user_message' ? 'You' : e.kind === 'thought' ? 'Thought' : 'Assistant'}\n\n${e.text ?? ''}\n`))
    .join('\n');
  const content = format === 'html' ? `<!doctype html><meta charset="utf-8"><title>${s.summary.title}</title><pre>${text.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'))}</pre>` : text;
  return { filename: `mnote-${s.summary.id}.${format}`, mime, content };
}

window.go = {
  desktop: {
    Bridge: {
      async Call(method: string, argsJSON: string): Promise<string> {
        const out = await call(method, JSON.parse(argsJSON || '{}'));
        return JSON.stringify(out ?? {});
      },
    },
  },
};
window.runtime = {
  EventsOn(name: string, cb: (...d: unknown[]) => void) {
    let set = listeners.get(name);
    if (!set) listeners.set(name, (set = new Set()));
    set.add(cb);
    return () => set.delete(cb);
  },
  BrowserOpenURL: (url: string) => console.log('open', url),
};

// ---- scripted runs (no input needed: for screenshots and measurements) --------

async function waitFor<T>(f: () => T | null | undefined, ms = 20_000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (performance.now() > end) throw new Error('mock: timed out waiting');
    await sleep(20);
  }
}

/** Puts a line of text on screen (a window's title cannot be read back). */
function show(text: string) {
  let el = document.getElementById('mock-report');
  if (!el) {
    el = document.createElement('div');
    el.id = 'mock-report';
    el.style.cssText =
      'position:fixed;left:0;right:0;bottom:0;z-index:999;padding:4px 8px;font:12px monospace;background:#000;color:#0f0;white-space:pre-wrap';
    document.body.appendChild(el);
  }
  el.textContent = text;
  document.title = text;
}

const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

async function openByClick(id: string): Promise<number> {
  const row = await waitFor(() => document.querySelector<HTMLButtonElement>(`button.open[data-id="${id}"]`));
  const t0 = performance.now();
  row.click();
  await waitFor(() => document.querySelector('[data-testid="thread"] .row'));
  await frame();
  return performance.now() - t0;
}

async function sendByTyping(text: string) {
  const ta = await waitFor(() => document.querySelector<HTMLTextAreaElement>('[data-testid="composer-input"]'));
  ta.value = text;
  ta.dispatchEvent(new Event('input', { bubbles: true }));
  await frame();
  ta.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
}

if (scenario === 'perf') {
  localStorage.setItem('mnote.agent', 'claude');
  void (async () => {
    await sleep(300);
    const openMs = await openByClick('perf');
    // Jump through the 20,000 entries: top, middle, end.
    const scroller = document.querySelector<HTMLElement>('[data-testid="thread"]')!;
    const t0 = performance.now();
    for (const f of [0, 0.25, 0.5, 0.75, 1]) {
      scroller.scrollTop = f * (scroller.scrollHeight - scroller.clientHeight);
      await frame();
    }
    const jumpMs = (performance.now() - t0) / 5;
    show(`PERF open=${openMs.toFixed(0)}ms jump=${jumpMs.toFixed(0)}ms/frame (streaming…)`);
    (window as unknown as { __perfOpen: string }).__perfOpen = `open=${openMs.toFixed(0)}ms jump=${jumpMs.toFixed(0)}ms`;
    await sleep(300);
    await sendByTyping('stream');
  })();
} else if (scenario === 'shot-agents') {
  void (async () => {
    const btn = await waitFor(() => document.querySelector<HTMLButtonElement>('.sidebar button.agent'));
    btn.click();
    await sleep(300);
    const check = await waitFor(() => [...document.querySelectorAll<HTMLButtonElement>('.dialog button')].find((b) => b.textContent?.trim() === 'Check'));
    check.click();
  })();
} else if (scenario === 'shot-search') {
  void (async () => {
    const input = await waitFor(() => document.querySelector<HTMLInputElement>('[data-testid="search-input"]'));
    input.value = 'index';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await sleep(400);
    const hit = await waitFor(() => document.querySelector<HTMLButtonElement>('[data-testid="search-results"] button'));
    hit.click();
  })();
} else if (scenario === 'shot' || scenario === 'shot-perm') {
  localStorage.setItem('mnote.agent', 'claude');
  void (async () => {
    await sleep(200);
    await openByClick('s1');
    const sc = document.querySelector<HTMLElement>('[data-testid="thread"]')!;
    const report = (tag: string) =>
      `${tag}:gap=${Math.round(sc.scrollHeight - sc.scrollTop - sc.clientHeight)},h=${sc.scrollHeight}`;
    await sleep(1000);
    let dbg = report('open');
    if (scenario === 'shot-perm') {
      await sendByTyping('Add chili peppers to the garden note');
      for (let i = 0; i < 8; i++) {
        await sleep(400);
        dbg += ' ' + report('t' + i);
      }
    }
    show('DBG ' + dbg);
  })();
}
