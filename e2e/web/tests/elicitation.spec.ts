// An agent's structured question (ACP elicitation/create, form mode): the
// form built from its schema, a wrong value refused in the page before it
// is sent, the accepted answer reaching the agent; a declined one; the
// agent withdrawing its question ($/cancel_request) closes the form.
import { expect, openApp, pickTestAgent, sendSteps, test, thread, waitTurnEnd, type Page } from './fixtures';

const answers = (page: Page) => thread(page).getByTestId('assistant-message');

const ask = (extra: Record<string, unknown> = {}) => ({
  elicit: {
    message: 'Which trip should I plan?',
    requestedSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', title: 'City', minLength: 2 },
        nights: { type: 'integer', title: 'Nights', minimum: 1, maximum: 14, default: 3 },
        budget: { type: 'string', title: 'Budget', oneOf: [{ const: 'low', title: 'Cheap' }, { const: 'high', title: 'Comfortable' }] },
        train: { type: 'boolean', title: 'By train', default: true },
      },
      required: ['city', 'nights'],
    },
    ...extra,
  },
});

test('elicitation: the form refuses a wrong value, then the answer reaches the agent', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  const form = page.getByTestId('elicitation-form');

  await sendSteps(page, [ask()]);
  await expect(form).toBeVisible();
  await expect(form.getByTestId('elicit-message')).toHaveText('Which trip should I plan?');
  await expect(form.getByLabel('Nights')).toHaveValue('3');
  await expect(form.getByLabel('By train')).toBeChecked();

  // Out of range and a missing required field: refused in the page.
  await form.getByLabel('Nights').fill('30');
  await form.getByRole('button', { name: 'Send' }).click();
  await expect(form.locator('[data-field="city"] [data-testid="elicit-error"]')).toHaveText('Required.');
  await expect(form.locator('[data-field="nights"] [data-testid="elicit-error"]')).toHaveText('At most 14.');
  await expect(answers(page)).toHaveCount(0);

  await form.getByLabel('City').fill('Lyon');
  await form.getByLabel('Nights').fill('4');
  await form.getByLabel('Budget').selectOption({ label: 'Comfortable' });
  await form.getByLabel('By train').uncheck();
  await form.getByRole('button', { name: 'Send' }).click();
  await expect(form).toBeHidden();
  await expect(answers(page)).toHaveText(['elicit: accept {"city":"Lyon","nights":4,"budget":"high","train":false}']);
  await waitTurnEnd(page);

  // A malicious page cannot slip a value past the form either: the bridge
  // checks the answer against the schema too.
  await sendSteps(page, [ask()]);
  await expect(form).toBeVisible();
  const [{ id }] = await serve.call<{ id: string }[]>('sessions.list');
  const snap = await serve.call<{ questions?: { requestId: string }[] }>('sessions.open', { id });
  const rid = snap.questions?.[0]?.requestId;
  expect(rid).toBeTruthy();
  await expect(
    serve.call('elicitations.answer', { sessionId: id, requestId: rid, action: 'accept', content: { city: 'Lyon', nights: 99 } }),
  ).rejects.toThrow(/nights: max/);
  await expect(form).toBeVisible();
  await form.getByRole('button', { name: 'Decline' }).click();
  await expect(form).toBeHidden();
  await expect(answers(page).nth(1)).toHaveText('elicit: decline');
  await waitTurnEnd(page);

  // The agent withdraws its question: the form closes by itself.
  await sendSteps(page, [ask({ withdraw: true }), { message: ' (withdrawn)' }]);
  await expect(answers(page).nth(2)).toHaveText('elicit: cancel (withdrawn)');
  await expect(form).toBeHidden();
  await waitTurnEnd(page);
});
