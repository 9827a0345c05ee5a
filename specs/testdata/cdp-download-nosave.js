#!/usr/bin/env node
// A plain Playwright agent for the hostile suite (issue 49.1): it connects over TRAPLINE_CDP_URL with
// connectOverCDP, clicks "Genera allegato aggiorna.bat" on the start page and lets the download end
// where Playwright put it (its own folder: connectOverCDP asks the browser for one), never calling
// saveAs. It prints the path Playwright reports and whether a file is there (before it closes the
// connection: Playwright then removes its folder), and exits 0.
'use strict';

const fs = require('fs');
const { chromium } = require(process.env.TRAPLINE_PLAYWRIGHT_CORE);

(async () => {
  const browser = await chromium.connectOverCDP(process.env.TRAPLINE_CDP_URL);
  const context = browser.contexts()[0] || (await browser.newContext());
  const page = context.pages()[0] || (await context.newPage());
  await page.goto(process.env.TRAPLINE_START_URL);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Genera allegato aggiorna.bat' }).click(),
  ]);
  const failure = await download.failure(); // waits for the end of the download; no saveAs
  const where = await download.path().catch(() => '');
  const saved = where !== '' && fs.existsSync(where);
  console.log(JSON.stringify({ step: 'download', file: download.suggestedFilename(), path: where, saved, failure }));
  await browser.close();
})().catch((e) => {
  console.error('agent:', e.message);
  process.exit(1);
});
