// The wording of Go's errors and notices (lib/errtext.ts): every reason of
// app/reasons.go has words in both languages, params fill them in, and what
// this version does not know falls back to the code's wording, then to the
// Go message — never a raw key.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/errors';
import type { ApiErrorShape, NoticePayload } from '../src/api/types';
import { errorText, KNOWN_CODES, KNOWN_REASONS, noticeText } from '../src/lib/errtext';
import { i18n } from '../src/lib/i18n.svelte';

// The Go side's reasons (app/reasons.go) and codes (app/errors.go): the Go
// test TestReasonsListedDocumentedAndWorded fails until this list is the
// Go constants (`go test -tags sqlite_fts5 ./app/ -run Reasons
// -update-reasons` rewrites it), and this test fails until each is worded.
import goList from './testdata/reasons.json';

const reasons: string[] = goList.reasons;
const codes: string[] = goList.codes;

/** Every param a reason may carry, so that its fullest wording is used. */
const ALL_PARAMS: Record<string, string> = {
  agent: 'Qwen Code',
  path: 'notes/plan.md',
  code: '3',
  count: '4',
  max: '20',
  turn: '2',
  files: 'a.md, b.md',
  method: 'browser',
  variable: 'OPENAI_API_KEY',
  terminal: 'xterm',
  message: 'no such mode',
  status: '503',
  methods: 'Log in with a browser',
  heldBack: 'ANTHROPIC_API_KEY, OPENAI_API_KEY',
  agentName: 'qwen',
};

const GO_MESSAGE = 'the Go side says so';
const HAN = /\p{Script=Han}/u;

afterEach(() => i18n.choose('en'));

describe('every Go reason is worded', () => {
  it('reads the reasons and codes of the Go side', () => {
    // A broken parse must not pass the checks below vacuously.
    expect(reasons.length).toBeGreaterThan(50);
    expect(reasons).toContain('agent_exited');
    expect(reasons).toContain('file_changed_on_disk');
    expect(codes).toEqual(expect.arrayContaining(['bad_request', 'conflict', 'sync_auth']));
  });

  it('has a wording for each Go reason and code, and none for a reason Go no longer has', () => {
    expect(reasons.filter((r) => !KNOWN_REASONS.includes(r))).toEqual([]);
    expect(KNOWN_REASONS.filter((r) => !reasons.includes(r))).toEqual([]);
    expect(codes.filter((c) => !KNOWN_CODES.includes(c))).toEqual([]);
    expect(KNOWN_CODES).toEqual(expect.arrayContaining(['network', 'unauthorized']));
  });

  for (const locale of ['en', 'zh-CN'] as const) {
    it(`words each reason in ${locale}, with and without params`, () => {
      i18n.choose(locale);
      for (const reason of reasons) {
        for (const params of [ALL_PARAMS, undefined]) {
          const text = errorText({ code: 'internal', reason, message: GO_MESSAGE, params });
          const where = `${reason} ${params ? 'with' : 'without'} params: ${text}`;
          expect(text, where).not.toBe(GO_MESSAGE);
          expect(text, where).not.toMatch(/errors_|[{}]|undefined/);
          expect(HAN.test(text), where).toBe(locale === 'zh-CN');
        }
      }
      for (const code of KNOWN_CODES) {
        const text = errorText({ code, message: GO_MESSAGE });
        expect(text, code).not.toBe(GO_MESSAGE);
        expect(HAN.test(text), code).toBe(locale === 'zh-CN');
      }
    });
  }
});

describe('errorText', () => {
  const exited: ApiErrorShape = {
    code: 'agent_failed',
    reason: 'agent_exited',
    message: 'agent exited with code 3',
    params: { agent: 'Qwen Code', code: '3' },
  };

  it('fills in the params, in English and in Chinese', () => {
    expect(errorText(exited)).toBe('Qwen Code stopped (exit code 3).');
    i18n.choose('zh-CN');
    expect(errorText(exited)).toBe('Qwen Code 已停止（退出码 3）。');
    expect(errorText({ code: 'conflict', reason: 'revert_conflict', message: 'x', params: { turn: '2', files: 'a.md', count: '1' } })).toBe(
      '第2轮未还原：a.md 在此之后已被修改。请先还原后面的轮次，或撤销这些编辑。',
    );
    expect(errorText({ code: 'bad_request', reason: 'too_many_files', message: 'x', params: { max: '20', count: '1200' } })).toBe(
      '一条消息最多附带20个文件，当前为1,200个。',
    );
  });

  it('picks the variant the params allow', () => {
    expect(errorText({ ...exited, params: { code: '3' } })).toBe('The agent stopped (exit code 3).');
    expect(errorText({ ...exited, params: { agent: 'Qwen Code', signal: 'SIGKILL' } })).toBe('Qwen Code was stopped by SIGKILL.');
    expect(errorText({ ...exited, params: undefined })).toBe('The agent stopped.');
    const big: ApiErrorShape = { code: 'bad_request', reason: 'too_large', message: 'x', params: { path: 'big.md' } };
    expect(errorText(big)).toBe('big.md is too large to open here: open it in another editor.');
    expect(errorText({ ...big, params: {} })).toBe('The file is too large to open here: open it in another editor.');
  });

  it('names the keys mnote held back from an agent that asks to sign in, and how to give one', () => {
    const auth: ApiErrorShape = {
      code: 'needs_auth',
      reason: 'agent_needs_auth',
      message: 'x',
      params: { agent: 'My agent', heldBack: 'ANTHROPIC_API_KEY, OPENAI_API_KEY', agentName: 'mine' },
    };
    expect(errorText(auth)).toBe(
      'My agent needs you to sign in first. mnote did not give it these variables of your environment: ANTHROPIC_API_KEY, OPENAI_API_KEY (an agent gets only its own provider’s keys). If it needs one, give it with “mnote agents --set-key mine NAME”, or in the agent’s “env” in config.json.',
    );
    expect(errorText({ ...auth, params: { heldBack: 'OPENAI_API_KEY', agentName: 'mine' } })).toMatch(
      /^The agent needs you to sign in first\. .*: OPENAI_API_KEY .*--set-key mine OPENAI_API_KEY”/,
    );
    expect(errorText({ ...auth, params: { agent: 'My agent' } })).toBe('My agent needs you to sign in first.');
    i18n.choose('zh-CN');
    expect(errorText(auth)).toBe(
      'My agent 需要你先登录。mnote 没有把你环境中的这些变量交给它：ANTHROPIC_API_KEY, OPENAI_API_KEY（智能体只会拿到它自己服务商的密钥）。如果它需要其中某个，请用“mnote agents --set-key mine NAME”提供，或写进 config.json 中该智能体的“env”。',
    );
  });

  it('takes the English plural forms from the raw count', () => {
    const e = (count: string): ApiErrorShape => ({ code: 'busy', reason: 'too_many_agents', message: 'x', params: { count } });
    expect(errorText(e('1'))).toMatch(/^1 agent process is running/);
    expect(errorText(e('6'))).toMatch(/^6 agent processes are running/);
    i18n.choose('zh-CN');
    expect(errorText(e('6'))).toMatch(/^已有6个智能体进程在运行/);
  });

  it('falls back to the code, then to the Go message, never to a key', () => {
    // A reason of a newer Go side: its code's words.
    expect(errorText({ code: 'busy', reason: 'brand_new_reason', message: GO_MESSAGE })).toBe('Busy; try again in a moment.');
    // A param every wording needs is missing: the code's words too.
    expect(errorText({ code: 'agent_missing', reason: 'agent_unknown', message: GO_MESSAGE })).toBe('The agent cannot be found.');
    // Neither reason nor code known: the Go message.
    expect(errorText({ code: 'teapot', reason: 'brand_new_reason', message: GO_MESSAGE })).toBe(GO_MESSAGE);
    expect(errorText({ code: 'teapot', message: '' })).toBe('Something went wrong inside mnote.');
    // A prototype name is not a reason.
    expect(errorText({ code: 'teapot', reason: 'toString', message: GO_MESSAGE })).toBe(GO_MESSAGE);
    i18n.choose('zh-CN');
    expect(errorText({ code: 'busy', reason: 'brand_new_reason', message: GO_MESSAGE })).toBe('正忙，请稍后再试。');
    expect(errorText({ code: 'teapot', message: GO_MESSAGE })).toBe(GO_MESSAGE);
  });

  it('words the API client’s own errors and keeps a Go error’s reason through ApiError', () => {
    expect(errorText(new ApiError('network', 'Cannot reach mnote.'))).toBe('Cannot reach mnote. Is `mnote serve` still running?');
    i18n.choose('zh-CN');
    expect(errorText(new ApiError('unauthorized', 'mnote refused the access token.'))).toBe(
      'mnote 拒绝了访问。请打开 `mnote serve` 最新输出的 URL。',
    );
    // In the window the promise rejects with the error's JSON.
    const err = ApiError.from(JSON.stringify({ code: 'bad_request', reason: 'outside_folder', message: 'refused', params: { path: '/etc/passwd' } }));
    expect(err.reason).toBe('outside_folder');
    expect(err.toJSON().params).toEqual({ path: '/etc/passwd' });
    expect(errorText(err)).toBe('/etc/passwd 位于文件夹之外。');
  });
});

describe('noticeText', () => {
  it('words a notice by its reason, else its code, else its message', () => {
    const crash: NoticePayload = { level: 'error', code: 'agent_failed', reason: 'agent_exited', message: 'The agent stopped: agent exited with code 1', params: { code: '1' } };
    expect(noticeText(crash)).toBe('The agent stopped (exit code 1).');
    i18n.choose('zh-CN');
    expect(noticeText(crash)).toBe('智能体已停止（退出码 1）。');
    expect(noticeText({ level: 'info', reason: 'checkpoints_scanning', message: 'x' })).toBe('mnote 仍在扫描此文件夹，这一轮的更改不会保留检查点，因而无法还原。');
    expect(noticeText({ level: 'error', code: 'write_failed', reason: 'later', message: 'x' })).toBe('mnote 无法将其写入磁盘。');
    expect(noticeText({ level: 'warn', message: 'an older Go side' })).toBe('an older Go side');
    expect(noticeText({ level: 'warn', reason: 'later', message: 'a newer Go side' })).toBe('a newer Go side');
  });
});
