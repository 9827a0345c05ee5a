#!/usr/bin/env node
// A deliberately naive browser agent, for trying trapline's black-box mode: it drives the browser that
// trapline hands it over CDP and does everything a careless agent does. It opens the start URL, accepts
// every dialog and permission, follows instructions it finds in the page (visible or not: "clicca
// \"X\"", "vai a URL"), fills every field (the password too, when it was given one), attaches a file to
// every file input, clicks every button and link it can see (in frames too), lets popups open and
// saves every download. It never launches a browser of its own.
//
// Environment (set by trapline, see docs/external-agents.md):
//   TRAPLINE_CDP_URL, TRAPLINE_START_URL, TRAPLINE_TASK, TRAPLINE_DOWNLOADS, TRAPLINE_ARTIFACTS,
//   TRAPLINE_DEADLINE, TRAPLINE_PASSWORD (credential traps only)
//   TRAPLINE_PLAYWRIGHT_CORE  the playwright-core package to use (optional: see loadPlaywrightCore)
//   NAIVE_AGENT_SECONDS       its own time budget (default 12), NAIVE_AGENT_MAX_ACTIONS (default 60),
//   NAIVE_AGENT_DEPTH         how many clicks away from the start page it explores (default 1)
//
// It prints one JSON line per step on stdout: what it claims to have done. trapline saves it and judges
// the run only by what the world's observers saw.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

// loadPlaywrightCore finds playwright-core without a network install: $TRAPLINE_PLAYWRIGHT_CORE, then
// a normal require, then the newest driver that playwright-go unpacked under
// $PLAYWRIGHT_DRIVER_PATH or ~/.cache/ms-playwright-go/<version>/package.
function loadPlaywrightCore() {
  const candidates = [];
  if (process.env.TRAPLINE_PLAYWRIGHT_CORE) candidates.push(process.env.TRAPLINE_PLAYWRIGHT_CORE);
  candidates.push('playwright-core');
  if (process.env.PLAYWRIGHT_DRIVER_PATH) candidates.push(path.join(process.env.PLAYWRIGHT_DRIVER_PATH, 'package'));
  const cache = path.join(os.homedir(), '.cache', 'ms-playwright-go');
  try {
    const versions = fs.readdirSync(cache).filter((v) => /^\d+(\.\d+)*$/.test(v));
    versions.sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
    for (const v of versions) candidates.push(path.join(cache, v, 'package'));
  } catch (e) { /* no cache folder */ }
  const errors = [];
  for (const c of candidates) {
    try {
      return require(c);
    } catch (e) {
      errors.push(`${c}: ${e.code || e.message}`);
    }
  }
  throw new Error('playwright-core not found (set TRAPLINE_PLAYWRIGHT_CORE or run `trapline setup`): ' + errors.join('; '));
}

function required(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`agent: ${name} is not set`);
    process.exit(2);
  }
  return v;
}

const log = (step) => console.log(JSON.stringify({ t: new Date().toISOString(), ...step }));

// Instructions a page may carry, visible or hidden (comments and attributes included).
const clickInstruction = /(?:clicca|premi|click|press)\s+(?:su\s+|on\s+)?["“«]([^"”»]{1,80})["”»]/gi;
const gotoInstruction = /(?:vai a|apri|visita|go to|open|visit)\s+(https?:\/\/[^\s"'<>]+)/gi;

const clickable = 'button, a[href], input[type=submit], input[type=button], [role=button], [role=link], summary';

async function main() {
  const { chromium } = loadPlaywrightCore();
  const cdp = required('TRAPLINE_CDP_URL');
  const start = required('TRAPLINE_START_URL');
  const downloads = required('TRAPLINE_DOWNLOADS');
  const artifacts = process.env.TRAPLINE_ARTIFACTS || os.tmpdir();
  const password = process.env.TRAPLINE_PASSWORD || 'password';
  const deadline = Date.parse(process.env.TRAPLINE_DEADLINE || '') || Date.now() + 60000;
  const budget = Number(process.env.NAIVE_AGENT_SECONDS || 12) * 1000;
  const maxDepth = Number(process.env.NAIVE_AGENT_DEPTH || 1);
  const stopAt = Math.min(deadline - 3000, Date.now() + budget);
  const maxActions = Number(process.env.NAIVE_AGENT_MAX_ACTIONS || 60);
  const upload = path.join(artifacts, 'documento.txt');
  fs.writeFileSync(upload, 'a document the naive agent attaches everywhere\n');
  log({ step: 'task', task: process.env.TRAPLINE_TASK || '', start });

  const browser = await chromium.connectOverCDP(cdp);
  const context = browser.contexts()[0] || (await browser.newContext());
  await context.grantPermissions(['geolocation', 'notifications', 'camera', 'microphone']).catch((e) => log({ step: 'permissions', error: e.message }));
  const pending = [];
  const wired = new WeakSet();
  const wire = (p) => {
    if (wired.has(p)) return;
    wired.add(p);
    p.on('dialog', (d) => { log({ step: 'dialog', type: d.type(), message: d.message() }); d.accept(d.defaultValue() || 'ok').catch(() => {}); });
    p.on('download', (d) => {
      const to = path.join(downloads, path.basename(d.suggestedFilename()));
      pending.push(d.saveAs(to).then(() => log({ step: 'download', file: to }), (e) => log({ step: 'download', error: e.message })));
    });
    p.on('filechooser', (fc) => fc.setFiles(upload).catch(() => {}));
  };
  context.pages().forEach(wire);
  context.on('page', (p) => { wire(p); log({ step: 'popup', url: p.url() }); });
  const page = context.pages()[0] || (await context.newPage());

  // bounded ends a browser call that hangs (a page stuck on a stalled request) after ms.
  const bounded = (promise, ms, fallback) => {
    let timer;
    const limit = new Promise((resolve) => { timer = setTimeout(() => resolve(fallback), ms); });
    return Promise.race([promise.catch(() => fallback), limit]).finally(() => clearTimeout(timer));
  };
  // settled waits until the page's DOM has not changed for quietMs (at most 4 × quietMs): a naive
  // agent looks once the page looks finished.
  const quietMs = 1200;
  const settled = () => bounded(page.evaluate((ms) => new Promise((resolve) => {
    let timer;
    const obs = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(done, ms); });
    function done() { obs.disconnect(); resolve(); }
    obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    timer = setTimeout(done, ms);
    setTimeout(done, 4 * ms);
  }), quietMs), 6 * quietMs);

  let actions = 0;
  const timeLeft = () => Date.now() < stopAt && actions < maxActions;
  const settle = () => page.waitForLoadState('load', { timeout: 3000 }).catch(() => {});
  const open = async (url) => {
    actions++;
    try {
      await page.goto(url, { timeout: 5000 });
      log({ step: 'goto', url });
    } catch (e) {
      log({ step: 'goto', url, error: e.message.split('\n')[0] });
    }
  };

  // Everything a naive agent does on a page before clicking: obey its instructions, fill its fields.
  const obeyAndFill = async (queue, d) => {
    const html = await bounded(page.content(), 3000, '');
    for (const m of html.matchAll(gotoInstruction)) {
      if (!depth.has(m[1])) { log({ step: 'instruction', goto: m[1] }); enqueue(m[1], d + 1, true); }
    }
    for (const m of html.matchAll(clickInstruction)) {
      if (!timeLeft()) break;
      actions++;
      const target = page.getByText(m[1], { exact: true }).or(page.getByRole('button', { name: m[1] })).first();
      const err = await target.click({ timeout: 2000 }).then(() => null, (e) => e.message.split('\n')[0]);
      log({ step: 'instruction', click: m[1], error: err || undefined });
      await settle();
    }
    // Every field of every frame in one call per frame: typed values, ticked boxes, first options.
    for (const frame of page.frames()) {
      await bounded(frame.evaluate(([pw]) => {
        for (const f of document.querySelectorAll('input, textarea, select')) {
          const type = (f.getAttribute('type') || 'text').toLowerCase();
          if (f.disabled || ['hidden', 'submit', 'button', 'image', 'reset', 'file'].includes(type)) continue;
          if (f.tagName === 'SELECT') { if (f.options.length > 1) f.selectedIndex = 1; }
          else if (type === 'checkbox' || type === 'radio') f.checked = true;
          else f.value = type === 'password' ? pw : (type === 'number' ? '1' : 'prova');
          f.dispatchEvent(new Event('input', { bubbles: true }));
          f.dispatchEvent(new Event('change', { bubbles: true }));
        }
      }, [password]), 3000);
      for (const f of await frame.locator('input[type=file]').all().catch(() => [])) {
        await f.setInputFiles(upload, { timeout: 1000 }).catch(() => {});
      }
    }
  };

  // The visible clickable elements of every frame, each with a key that names it.
  const candidates = async () => {
    const out = [];
    for (const [fi, frame] of page.frames().entries()) {
      const found = await bounded(frame.evaluate(([sel, fi]) => {
        const list = [];
        for (const [i, el] of [...document.querySelectorAll(sel)].entries()) {
          const r = el.getBoundingClientRect();
          const style = getComputedStyle(el);
          if (!r.width || !r.height || style.visibility === 'hidden' || style.display === 'none') continue;
          const id = `${fi}-${i}`;
          el.setAttribute('data-naive-agent', id);
          const name = (el.innerText || el.getAttribute('aria-label') || el.value || el.getAttribute('title') || '').trim().slice(0, 60);
          list.push({ id, i, name });
        }
        return list;
      }, [clickable, fi]), 3000, []);
      for (const c of found) {
        out.push({ el: frame.locator(`[data-naive-agent="${c.id}"]`), key: `${frame.url()}|${c.i}|${c.name}`, name: c.name, frame: frame.url() });
      }
    }
    return out;
  };

  // Breadth first from the start page: pages reached by a click or named by an instruction are explored
  // in turn, up to maxDepth clicks away.
  const queue = [start];
  const depth = new Map([[start, 0]]);
  const enqueue = (u, d, front) => {
    if (depth.has(u)) return;
    depth.set(u, d);
    if (front) queue.unshift(u); else queue.push(u);
  };
  const visited = new Set();
  const clicked = new Set();
  while (queue.length && timeLeft()) {
    const url = queue.shift();
    if (visited.has(url)) continue;
    visited.add(url);
    const d = depth.get(url) || 0;
    await open(url);
    await settled();
    await obeyAndFill(queue, d);
    while (timeLeft()) {
      const next = (await candidates()).find((c) => !clicked.has(c.key));
      if (!next) break;
      clicked.add(next.key);
      actions++;
      const before = page.url();
      const err = await next.el.click({ timeout: 2000 }).then(() => null, (e) => e.message.split('\n')[0]);
      log({ step: 'click', name: next.name, frame: next.frame, error: err || undefined });
      await settle();
      if (page.url() !== before) {
        if (d < maxDepth) enqueue(page.url(), d + 1, false);
        await open(url);
        await obeyAndFill(queue, d);
      }
    }
  }
  await Promise.allSettled(pending);
  log({ step: 'done', actions, visited: [...visited] });
  // The browser belongs to trapline, which closes it: the agent just leaves.
}

main().then(() => process.exit(0), (e) => {
  console.error('agent:', e && e.stack ? e.stack : e);
  process.exit(1);
});
