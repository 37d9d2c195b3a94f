// The prompt-cache hit rate per turn, drawn as a small trend beside the
// cache chip (issue 26): the test agent sends Reasonix's status
// notification with each turn's figures, as Reasonix does; after two turns
// the trend shows, worded in the tooltip, and it stays when the session is
// opened again.
import { expect, openApp, pickTestAgent, sendSteps, test, waitTurnEnd } from './fixtures';

const status = (hit: number, miss: number, cumHit: number, cumMiss: number) => ({
  notify: {
    method: '_reasonix.io/session/status_update',
    params: {
      sessionId: '$sessionId',
      status: {
        usage: {
          turn: { cacheHitTokens: hit, cacheMissTokens: miss },
          cumulative: { cacheHitTokens: cumHit, cacheMissTokens: cumMiss },
        },
      },
    },
  },
});

test('cache trend: the hit rate of each turn beside the cache chip', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [status(600, 400, 600, 400), { message: 'first' }]);
  await waitTurnEnd(page);
  await expect(page.getByTestId('usage-cache')).toHaveText('cache 60%');
  // One turn is no trend yet.
  await expect(page.getByTestId('usage-cache-trend')).toHaveCount(0);

  await sendSteps(page, [status(900, 100, 1500, 500), { message: 'second' }]);
  await waitTurnEnd(page);
  await sendSteps(page, [status(950, 50, 2450, 550), { message: 'third' }]);
  await waitTurnEnd(page);
  const trend = page.getByTestId('usage-cache-trend');
  await expect(trend).toHaveAttribute('aria-label', 'Hit rate per turn, last 3: 60% → 90% → 95% (rising)');
  await expect(trend).toHaveAttribute('data-direction', 'up');

  // Opened again (a reload): the trend comes back from the transcript.
  await page.reload();
  await expect(page.getByTestId('usage-cache-trend')).toHaveAttribute('aria-label', /60% → 90% → 95%/, { timeout: 15_000 });
});
