#!/usr/bin/env node
// A function-calling browser agent of the shape most frameworks build (the OpenAI Agents SDK, the
// Vercel ai SDK, LangChain.js): its own loop calls a model's chat completions API with its tools
// (navigate, snapshot, click, fill) described by JSON schemas, runs the tool calls the model answers on
// the browser trapline hands it over CDP, and feeds the results back, until the model stops. It has no
// dependency of its own: Node.js's fetch for the model, playwright-core for the browser.
//
// The model is whatever OPENAI_BASE_URL serves: with `trapline run --agent external --model adversary`
// it is trapline's adversary (docs/agent-frameworks.md).
'use strict';

const path = require('path');

function loadPlaywrightCore() {
  for (const c of [process.env.TRAPLINE_PLAYWRIGHT_CORE, 'playwright-core'].filter(Boolean)) {
    try { return require(c); } catch (e) { /* next */ }
  }
  throw new Error('playwright-core not found: set TRAPLINE_PLAYWRIGHT_CORE');
}

const tools = [
  { type: 'function', function: { name: 'navigate', description: 'Open a URL in the browser',
    parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'], additionalProperties: false } } },
  { type: 'function', function: { name: 'snapshot', description: "Read the page: its accessibility snapshot with element refs",
    parameters: { type: 'object', properties: {}, additionalProperties: false } } },
  { type: 'function', function: { name: 'click', description: 'Click an element',
    parameters: { type: 'object', properties: { ref: { type: 'string', description: 'the element ref from the snapshot' } }, required: ['ref'], additionalProperties: false } } },
  { type: 'function', function: { name: 'fill', description: 'Type text into a field, replacing its value',
    parameters: { type: 'object', properties: { ref: { type: 'string', description: 'the element ref from the snapshot' }, text: { type: 'string' } }, required: ['ref', 'text'], additionalProperties: false } } },
];

async function main() {
  const base = process.env.OPENAI_BASE_URL;
  if (!base) throw new Error('OPENAI_BASE_URL is not set');
  const { chromium } = loadPlaywrightCore();
  const browser = await chromium.connectOverCDP(process.env.TRAPLINE_CDP_URL);
  const ctx = browser.contexts()[0] || await browser.newContext();
  const page = ctx.pages()[0] || await ctx.newPage();
  page.on('dialog', (d) => d.accept().catch(() => {}));
  const run = {
    navigate: async (a) => { await page.goto(a.url); return 'navigated to ' + page.url(); },
    snapshot: async () => '- Page URL: ' + page.url() + '\n```yaml\n' + await page.ariaSnapshot({ mode: 'ai' }) + '\n```',
    click: async (a) => { await page.locator('aria-ref=' + a.ref).click({ timeout: 5000 }); await page.waitForLoadState().catch(() => {}); return 'clicked'; },
    fill: async (a) => { await page.locator('aria-ref=' + a.ref).fill(a.text, { timeout: 5000 }); return 'filled'; },
  };
  const messages = [
    { role: 'system', content: 'You are a browser agent. Use the tools to do the task.' },
    { role: 'user', content: process.env.TRAPLINE_TASK || 'Do the task on the start page.' },
  ];
  for (let turn = 0; turn < 40; turn++) {
    const res = await fetch(base.replace(/\/$/, '') + '/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + (process.env.OPENAI_API_KEY || '') },
      body: JSON.stringify({ model: process.env.AGENT_MODEL || 'adversary', messages, tools, tool_choice: 'auto' }),
    });
    const body = await res.json();
    if (!res.ok) throw new Error('the model answered ' + res.status + ': ' + JSON.stringify(body));
    const msg = body.choices[0].message;
    messages.push(msg);
    if (!msg.tool_calls || msg.tool_calls.length === 0) {
      console.log(JSON.stringify({ done: msg.content }));
      break;
    }
    for (const tc of msg.tool_calls) {
      let out;
      try {
        out = await run[tc.function.name](JSON.parse(tc.function.arguments || '{}'));
      } catch (e) {
        out = 'error: ' + e.message;
      }
      console.log(JSON.stringify({ tool: tc.function.name, args: tc.function.arguments, result: String(out).slice(0, 200) }));
      messages.push({ role: 'tool', tool_call_id: tc.id, content: String(out) });
    }
  }
  await browser.close().catch(() => {});
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
