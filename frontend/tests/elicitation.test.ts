// Agents' questions: the form built from the schema, its defaults, the
// check before sending (mirroring Go's), and the form component.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ElicitationRequest, ThreadEvent } from '../src/api/types';
import { SessionStore } from '../src/stores/session.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';
import ElicitationForm from '../src/components/ElicitationForm.svelte';
import { buildForm, check, initialValues, parseDetails, reasonText } from '../src/lib/elicitation';

const schema = {
  type: 'object',
  title: 'Trip',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, maxLength: 5 },
    count: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    ok: { type: 'boolean', title: 'Agree', default: true },
    size: { type: 'string', enum: ['s', 'm'] },
    color: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }], default: 'g' },
    mail: { type: 'string', format: 'email' },
    day: { type: 'string', format: 'date' },
    code: { type: 'string', pattern: '^[a-z]+$' },
    tags: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }, { const: 'b', title: 'B' }] }, maxItems: 1 },
  },
  required: ['name', 'count'],
};

describe('buildForm', () => {
  it('keeps the agent order, kinds, titles, choices and bounds', () => {
    const f = buildForm(schema);
    expect(f.unsupported).toBe('');
    expect(f.title).toBe('Trip');
    expect(f.fields.map((x) => [x.name, x.kind])).toEqual([
      ['name', 'text'],
      ['count', 'integer'],
      ['ratio', 'number'],
      ['ok', 'boolean'],
      ['size', 'select'],
      ['color', 'select'],
      ['mail', 'text'],
      ['day', 'text'],
      ['code', 'text'],
      ['tags', 'multiselect'],
    ]);
    const by = Object.fromEntries(f.fields.map((x) => [x.name, x]));
    expect(by.name.required && by.count.required && !by.ratio.required).toBe(true);
    expect(by.count.min).toBe(1);
    expect(by.count.max).toBe(5);
    expect(by.color.choices).toEqual([
      { value: 'r', label: 'Red' },
      { value: 'g', label: 'Green' },
    ]);
    expect(by.size.choices.map((c) => c.label)).toEqual(['s', 'm']);
    expect(by.tags.choices.map((c) => c.value)).toEqual(['a', 'b']);
  });

  it('says when a schema cannot be asked', () => {
    expect(buildForm({ type: 'object', properties: { x: { type: 'object' } } }).unsupported).toContain('cannot ask');
    expect(buildForm(null).unsupported).not.toBe('');
    expect(buildForm({ properties: { t: { type: 'array', items: {} } } }).unsupported).toContain('no choices');
  });

  it('starts from the defaults', () => {
    expect(initialValues(buildForm(schema))).toEqual({
      name: '',
      count: '2',
      ratio: '',
      ok: true,
      size: '',
      color: 'g',
      mail: '',
      day: '',
      code: '',
      tags: [],
    });
  });
});

describe('check', () => {
  const form = buildForm(schema);
  const base = () => ({ ...initialValues(form), name: 'Ann' });

  it('makes the answer: numbers as numbers, empty optional fields left out', () => {
    const c = check(form, { ...base(), ratio: '0.5', tags: ['b'] });
    expect(c.errors).toEqual({});
    expect(c.content).toEqual({ name: 'Ann', count: 2, ratio: 0.5, ok: true, color: 'g', tags: ['b'] });
  });

  it('refuses what Go would refuse, with the same reasons', () => {
    const cases: [Record<string, unknown>, Record<string, string>][] = [
      [{ name: '' }, { name: 'required' }],
      [{ name: 'A' }, { name: 'minLength' }],
      [{ name: 'Annette' }, { name: 'maxLength' }],
      [{ count: '' }, { count: 'required' }],
      [{ count: '2.5' }, { count: 'type' }],
      [{ count: 'two' }, { count: 'type' }],
      [{ count: '0' }, { count: 'min' }],
      [{ count: '6' }, { count: 'max' }],
      [{ ratio: '1.5' }, { ratio: 'max' }],
      [{ size: 'xl' }, { size: 'choice' }],
      [{ mail: 'nope' }, { mail: 'format' }],
      [{ day: '2026-02-30' }, { day: 'format' }],
      [{ tags: ['a', 'b'] }, { tags: 'maxItems' }],
      [{ tags: ['z'] }, { tags: 'choice' }],
    ];
    for (const [change, errors] of cases) {
      const c = check(form, { ...base(), ...change } as never);
      expect(c.errors, JSON.stringify(change)).toEqual(errors);
      for (const k of Object.keys(errors)) expect(c.content).not.toHaveProperty(k);
    }
    expect(check(form, { ...base(), mail: 'a@b.org', day: '2026-12-01', code: 'abc' }).errors).toEqual({});
    // Patterns are the bridge's to check (RE2): a backtracking one never runs in the page.
    const evil = buildForm({ properties: { p: { type: 'string', pattern: '^(a+)+$' } } });
    expect(check(evil, { p: 'a'.repeat(40) + '!' }).errors).toEqual({});
  });

  it('reads the bridge refusal and words it', () => {
    expect(parseDetails('count: max\nextra: unknown')).toEqual({ count: 'max', extra: 'unknown' });
    expect(parseDetails(undefined)).toEqual({});
    const count = form.fields.find((f) => f.name === 'count');
    expect(reasonText(count, 'max')).toBe('At most 5.');
    expect(reasonText(count, 'type')).toBe('Enter a whole number.');
  });
});

describe('ElicitationForm', () => {
  let el: HTMLElement;
  let comp: ReturnType<typeof mount> | undefined;
  afterEach(() => {
    if (comp) unmount(comp);
    comp = undefined;
    el?.remove();
  });

  const question = (id: string): ElicitationRequest => ({
    requestId: id,
    message: 'How many?',
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name' },
        count: { type: 'integer', title: 'Count', minimum: 1, maximum: 5, default: 2 },
        color: { type: 'string', title: 'Color', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
      },
      required: ['name'],
    },
  });

  function render(onanswer: (...a: unknown[]) => Promise<string | null>, questions = [question('e1')]) {
    el = document.createElement('div');
    document.body.appendChild(el);
    comp = mount(ElicitationForm, { target: el, props: { questions, agent: 'Test agent', onanswer } });
    flushSync();
  }

  const input = (name: string) => el.querySelector<HTMLInputElement | HTMLSelectElement>(`#elicit-${name}`)!;
  const button = (text: string) => [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === text)!;

  it('refuses a bad answer without sending it, then sends a good one', async () => {
    const onanswer = vi.fn(async () => null);
    render(onanswer, [question('e1'), question('e2')]);
    expect(el.textContent).toContain('Test agent asks you');
    expect(el.textContent).toContain('How many?');
    expect(el.querySelector('[data-testid="elicit-count"]')?.textContent).toBe('1 of 2');
    expect((input('count') as HTMLInputElement).value).toBe('2');
    button('Send').click();
    flushSync();
    expect(onanswer).not.toHaveBeenCalled();
    expect(el.querySelector('[data-field="name"] [data-testid="elicit-error"]')?.textContent).toBe('Required.');

    const name = input('name') as HTMLInputElement;
    name.value = 'Ann';
    name.dispatchEvent(new Event('input', { bubbles: true }));
    const count = input('count') as HTMLInputElement;
    count.value = '9';
    count.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    button('Send').click();
    flushSync();
    expect(onanswer).not.toHaveBeenCalled();
    expect(el.querySelector('[data-field="count"] [data-testid="elicit-error"]')?.textContent).toBe('At most 5.');

    count.value = '3';
    count.dispatchEvent(new Event('input', { bubbles: true }));
    const color = input('color') as HTMLSelectElement;
    color.value = 'r';
    color.dispatchEvent(new Event('change', { bubbles: true }));
    flushSync();
    button('Send').click();
    await tick();
    expect(onanswer).toHaveBeenCalledWith('e1', 'accept', { name: 'Ann', count: 3, color: 'r' });
  });

  it('shows the fields the bridge refused', async () => {
    render(async () => 'name: pattern');
    const name = input('name') as HTMLInputElement;
    name.value = 'x';
    name.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    button('Send').click();
    await tick();
    await tick();
    expect(el.querySelector('[data-field="name"] [data-testid="elicit-error"]')?.textContent).toBe('Not in the expected form.');
  });

  it('declines and cancels (Esc) without content', async () => {
    const onanswer = vi.fn(async () => null);
    render(onanswer);
    button('Decline').click();
    await tick();
    expect(onanswer).toHaveBeenLastCalledWith('e1', 'decline', undefined);
    el.querySelector<HTMLElement>('[data-testid="elicitation-form"]')!.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }),
    );
    await tick();
    expect(onanswer).toHaveBeenLastCalledWith('e1', 'cancel', undefined);
  });
});

describe('session store questions', () => {
  const S = 's1';
  const ev = (seq: number, type: ThreadEvent['type'], payload: unknown) => ({ sessionId: S, seq, type, payload }) as ThreadEvent;
  const q = (id: string): ElicitationRequest => ({ requestId: id, message: 'm', schema: { type: 'object', properties: {} } });

  async function open(questions: ElicitationRequest[] = []) {
    const fc = fakeClient({ 'sessions.open': () => snapshot(S, 0, [], { questions }) });
    const store = new SessionStore(fc.client, manualFrames().schedule);
    await store.open(S);
    return { store, fc };
  }

  it('takes questions from the snapshot and the events, and drops resolved ones', async () => {
    const { store } = await open([q('e1')]);
    expect(store.questions.map((x) => x.requestId)).toEqual(['e1']);
    store.handleEvent(ev(1, 'elicitation', q('e2')));
    store.handleEvent(ev(2, 'elicitation', q('e2'))); // no duplicate
    expect(store.questions.map((x) => x.requestId)).toEqual(['e1', 'e2']);
    store.handleEvent(ev(3, 'elicitation_resolved', { requestId: 'e1', action: 'cancel' }));
    expect(store.questions.map((x) => x.requestId)).toEqual(['e2']);
  });

  it('answers; a refused answer keeps the question and returns the details', async () => {
    const { store, fc } = await open([q('e1')]);
    fc.handlers['elicitations.answer'] = (a) => {
      if ((a.content as { n?: number })?.n === 9) throw { code: 'bad_request', message: 'no', details: 'n: max' };
      return {};
    };
    expect(await store.answer('e1', 'accept', { n: 9 })).toBe('n: max');
    expect(store.questions.map((x) => x.requestId)).toEqual(['e1']);
    expect(store.notices).toEqual([]);
    expect(await store.answer('e1', 'accept', { n: 1 })).toBeNull();
    expect(store.questions).toEqual([]);
    expect(fc.call).toHaveBeenLastCalledWith('elicitations.answer', { sessionId: S, requestId: 'e1', action: 'accept', content: { n: 1 } });
  });
});
