// Errors and notices Go sends with a reason are shown in the interface
// language wherever the page reads their message (toasts, "Could not …"
// notices), and follow a switch; without a reason the Go message stays.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/errors';
import { i18n } from '../src/lib/i18n.svelte';
import { SessionStore } from '../src/stores/session.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

describe('Go errors and notices in the interface language', () => {
  it('an ApiError with a reason is worded, and follows the language', () => {
    const e = ApiError.from({ code: 'agent_missing', message: 'start Qwen Code: not installed', reason: 'agent_not_installed', params: { agent: 'Qwen Code' } });
    try {
      i18n.choose('zh-CN');
      expect(e.message).toBe('Qwen Code 尚未安装。');
      i18n.choose('en');
      expect(e.message).toBe('Qwen Code is not installed.');
      expect(e.goMessage).toBe('start Qwen Code: not installed');
      expect(e.toJSON().message).toBe('start Qwen Code: not installed');
    } finally {
      i18n.choose('system');
    }
    const plain = ApiError.from({ code: 'internal', message: 'boom' });
    expect(plain.message).toBe('boom');
    const unknown = ApiError.from({ code: 'internal', message: 'later', reason: 'a_reason_from_a_newer_go' });
    expect(unknown.message).toBe('later');
  });

  it('a notice event with a reason shows in Chinese, one without keeps its text', async () => {
    const frames = manualFrames();
    const { client } = fakeClient({ 'sessions.open': () => snapshot('s1', 0, []) });
    const s = new SessionStore(client, frames.schedule);
    await s.open('s1');
    try {
      i18n.choose('zh-CN');
      s.handleEvent({ sessionId: 's1', seq: 1, type: 'notice', payload: { level: 'error', message: 'x is outside the folder', reason: 'outside_folder', params: { path: '/etc/x' } } });
      s.handleEvent({ sessionId: 's1', seq: 2, type: 'notice', payload: { level: 'info', message: 'plain words' } });
      frames.run();
      expect(s.notices.map((n) => n.message)).toEqual(['/etc/x 位于文件夹之外。', 'plain words']);
      i18n.choose('en');
      expect(s.notices[0].message).toBe('/etc/x is outside the folder.');
    } finally {
      i18n.choose('system');
    }
  });
});
