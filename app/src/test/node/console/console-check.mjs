// Uses the web console in headless Chromium as an operator would (ConsoleBrowserIT): signs in with
// the write token, waits for the provider's calls, pauses it, sees it paused and its calls/s at 0,
// resumes it (the provider's record says when calls came again), opens the dead-letter browser (list, dry-run preview, confirmed replay, preview
// again), looks a tenant up, and signs in again with the read token to see writes disabled.
// Prints one JSON line of what it saw and when (epoch ms); the Java test judges the provider's own
// record of calls against those times. Input from the environment: BASE_URL, WRITE_TOKEN,
// READ_TOKEN, PROVIDER, SCREENSHOT.
import { chromium } from 'playwright-core';

const { BASE_URL, WRITE_TOKEN, READ_TOKEN, PROVIDER, SCREENSHOT } = process.env;
const seen = {};

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1100, height: 720 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push('console: ' + m.text()); });
  page.on('dialog', (d) => { problems.push('dialog: ' + d.message()); d.dismiss(); });

  await page.goto(BASE_URL + '/console/');
  await page.fill('#token', WRITE_TOKEN);
  await page.click('#login-button');
  const card = page.locator(`.card[data-provider="${PROVIDER}"]`);
  await card.waitFor();
  seen.access = await page.textContent('#access');
  seen.urlAfterLogin = page.url();
  // Meanwhile (the calls take a few seconds to flow): a read-token session sees the providers
  // with writes disabled, and a wrong token is refused.
  const others = (async () => {
    // A read-token session sees the providers, with writes disabled.
    const reader = await (await browser.newContext()).newPage();
    await reader.goto(BASE_URL + '/console/');
    await reader.fill('#token', READ_TOKEN);
    await reader.click('#login-button');
    const readCard = reader.locator(`.card[data-provider="${PROVIDER}"]`);
    await readCard.waitFor();
    seen.readAccess = await reader.textContent('#access');
    seen.readPauseDisabled = await readCard.locator('button.pause').isDisabled();
    await reader.click('button[data-tab="dlq"]');
    seen.readReplayDisabled = await reader.locator('#dlq-preview').isDisabled();
    await reader.context().close(); // it polls the status every second; the writer's is enough

    // A wrong token is refused, and says so.
    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(BASE_URL + '/console/');
    await stranger.fill('#token', 'not-the-token');
    await stranger.click('#login-button');
    await stranger.waitForFunction(() => document.getElementById('login-error').textContent !== '');
    seen.wrongToken = await stranger.textContent('#login-error');
    await stranger.context().close();
  })();
  // Calls flowing, as the console computes them from two samples a second apart.
  await page.waitForFunction((p) => {
    const t = document.querySelector(`.card[data-provider="${p}"] .figures`).textContent;
    const m = /calls\/s ([0-9.]+)/.exec(t);
    return m && Number(m[1]) > 0;
  }, PROVIDER, { timeout: 8000 });
  await others;

  seen.pauseClickedAt = Date.now();
  await card.locator('input.reason').fill('ConsoleBrowserIT <b>watching</b>');
  await card.locator('button.pause').click();
  await page.waitForSelector(`.card[data-provider="${PROVIDER}"][data-state="paused"]`);
  seen.shownPausedAt = Date.now();
  seen.badgeWhilePaused = await card.locator('.badge').textContent();
  seen.pauseReasonShown = await card.locator('.pause-reasons').textContent();
  // What the waiting events wait for (issue 39): the pause, as held or parked events.
  await page.waitForFunction((p) => /held by a pause|parked in Kafka/.test(
    document.querySelector(`.card[data-provider="${p}"] .waits`)?.textContent || ''), PROVIDER,
  { timeout: 20000 });
  seen.waitsWhilePaused = await card.locator('.waits').textContent();
  // The console's own plot reaching zero: a second with no call.
  await page.waitForFunction((p) => /calls\/s 0\.0 /.test(
    document.querySelector(`.card[data-provider="${p}"] .figures`).textContent), PROVIDER, { timeout: 4000 });
  seen.zeroShownAt = Date.now();
  // The time watched with no call (2.5 s from the press), not a wait for anything.
  await page.waitForTimeout(Math.max(0, seen.pauseClickedAt + 2500 - Date.now()));
  seen.resumeClickedAt = Date.now();
  await card.locator('button.resume').click();
  await page.waitForSelector(`.card[data-provider="${PROVIDER}"][data-state="running"]`);
  seen.shownRunningAt = Date.now();
  await page.screenshot({ path: SCREENSHOT });

  // The dead-letter browser: the provider's hostile 400 answer is listed as text.
  await page.click('button[data-tab="dlq"]');
  await page.fill('#dlq-form input[name="provider"]', PROVIDER);
  for (let i = 0; i < 40; i++) {
    await page.click('#dlq-search');
    await page.waitForFunction(() => !/reading/.test(document.getElementById('dlq-message').textContent));
    if (await page.locator('#dlq-rows tbody tr').count() > 0) break;
    await page.waitForTimeout(250);
  }
  seen.deadLetterRows = await page.$$eval('#dlq-rows tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  seen.elementsFromData = await page.locator('#dlq-rows img, .card b').count();
  await page.click('#dlq-preview');
  await page.waitForFunction(() => !document.getElementById('dlq-replay').hidden
    || !/^working/.test(document.getElementById('dlq-message').textContent));
  seen.preview = await page.textContent('#dlq-replay-text');
  if (await page.locator('#dlq-replay').isHidden()) {
    throw new Error('no replay preview: ' + await page.textContent('#dlq-message'));
  }
  await page.click('#dlq-confirm');
  await page.waitForFunction(() => /^sent /.test(document.getElementById('dlq-message').textContent));
  seen.replayed = await page.textContent('#dlq-message');
  await page.click('#dlq-preview');
  await page.waitForFunction(() => /would send 0 /.test(document.getElementById('dlq-replay-text').textContent));
  seen.previewAgain = await page.textContent('#dlq-replay-text');
  seen.confirmAgainDisabled = await page.locator('#dlq-confirm').isDisabled();

  // An event's journey: the poisoned event's, its provider's answer shown as text.
  await page.click('button[data-tab="events"]');
  await page.fill('#event-id', 'poison');
  await page.fill('#event-since', '1h');
  await page.click('#event-search');
  await page.waitForFunction(() => !/^reading/.test(document.getElementById('event-message').textContent));
  seen.journeyRows = await page.$$eval('#event-stages tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  seen.journeyMessage = await page.textContent('#event-message');
  seen.elementsFromJourney = await page.locator('#event-stages img').count();

  // Tenant lookup: the registry's answer, or the sentence saying this Sluice has none.
  await page.click('button[data-tab="tenants"]');
  await page.fill('#tenant-id', 'acme');
  await page.click('#tenant-find button[type="submit"]');
  await page.waitForFunction(() => document.getElementById('tenant-message').textContent !== ''
    || !document.getElementById('tenant-edit').hidden);
  seen.tenantMessage = await page.textContent('#tenant-message');
  seen.tenantFormShown = await page.locator('#tenant-edit').isVisible();
  await page.waitForSelector('#tenant-wait li');
  seen.tenantWait = await page.$$eval('#tenant-wait li', (items) => items.map((i) => i.textContent));
  seen.title = await page.title();
  seen.tokenInStorage = await page.evaluate(() => sessionStorage.getItem('sluice.adminToken') !== null);
  seen.tokenInPage = (await page.content()).includes(WRITE_TOKEN);
  await page.click('#logout');
  seen.tokenAfterSignOut = await page.evaluate(() => sessionStorage.getItem('sluice.adminToken'));
  seen.problems = problems;

} finally {
  await browser.close();
}
console.log(JSON.stringify(seen));
