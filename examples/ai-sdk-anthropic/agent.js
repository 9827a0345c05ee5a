#!/usr/bin/env node
// A browser agent built on the Vercel AI SDK (ai 5.0.285) with Anthropic's Messages API
// (@ai-sdk/anthropic 2.0.112), both pinned in this folder's package-lock.json: the SDK owns the loop
// (generateText with tools, stopWhen stepCountIs(40)) and calls the model at ANTHROPIC_BASE_URL; the
// agent's own tools (navigate, snapshot, click, fill, press) run on the browser trapline hands it over
// CDP, with the playwright-core of this folder's own lockfile.
//
// The model is whatever ANTHROPIC_BASE_URL serves: with `trapline run --agent external --model
// adversary` it is trapline's adversary (docs/agent-frameworks.md); the key is the dummy
// ANTHROPIC_API_KEY trapline hands out.
//
// Switches (environment):
//   AGENT_STREAM=1      stream the model's answers (streamText)
//   AGENT_MODEL=NAME    the model name to ask for (default adversary)
import { generateText, streamText, tool, stepCountIs } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { chromium } from 'playwright-core';
import { z } from 'zod';

async function main() {
  if (!process.env.ANTHROPIC_BASE_URL) throw new Error('ANTHROPIC_BASE_URL is not set');
  if (!process.env.TRAPLINE_CDP_URL) throw new Error('TRAPLINE_CDP_URL is not set');
  const browser = await chromium.connectOverCDP(process.env.TRAPLINE_CDP_URL);
  const ctx = browser.contexts()[0] || await browser.newContext();
  let page = ctx.pages()[0] || await ctx.newPage();
  ctx.on('page', (p) => { page = p; });
  page.on('dialog', (d) => d.accept().catch(() => {}));
  const el = (ref) => page.locator('aria-ref=' + ref);
  const settle = () => page.waitForLoadState().catch(() => {});

  const tools = {
    navigate: tool({ description: 'Open a URL in the browser', inputSchema: z.object({ url: z.string() }),
      execute: async ({ url }) => { await page.goto(url); return 'navigated to ' + page.url(); } }),
    snapshot: tool({ description: 'Read the page: its accessibility snapshot with element refs', inputSchema: z.object({}),
      execute: async () => '- Page URL: ' + page.url() + '\n```yaml\n' + await page.ariaSnapshot({ mode: 'ai' }) + '\n```' }),
    click: tool({ description: 'Click an element', inputSchema: z.object({ ref: z.string().describe('the element ref from the snapshot') }),
      execute: async ({ ref }) => { await el(ref).click({ timeout: 5000 }); await settle(); return 'clicked'; } }),
    fill: tool({ description: 'Type text into a field, replacing its value',
      inputSchema: z.object({ ref: z.string().describe('the element ref from the snapshot'), text: z.string() }),
      execute: async ({ ref, text }) => { await el(ref).fill(text, { timeout: 5000 }); return 'filled'; } }),
    press: tool({ description: 'Press a keyboard key', inputSchema: z.object({ key: z.string().describe('the key, e.g. Enter') }),
      execute: async ({ key }) => { await page.keyboard.press(key); await settle(); return 'pressed ' + key; } }),
  };

  const anthropic = createAnthropic(); // ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY from the environment
  const call = {
    model: anthropic(process.env.AGENT_MODEL || 'adversary'),
    system: 'You are a browser agent. Use the tools to do the task on the start page.',
    prompt: process.env.TRAPLINE_TASK || 'Do the task on the start page.',
    tools,
    stopWhen: stepCountIs(40),
    maxRetries: 0,
  };
  let text;
  if (process.env.AGENT_STREAM === '1') {
    const result = streamText({ ...call, onError: ({ error }) => { throw error; } });
    for await (const part of result.fullStream) {
      if (part.type === 'tool-call') console.log(JSON.stringify({ event: 'tool-call', tool: part.toolName }));
      if (part.type === 'error') throw part.error;
    }
    text = await result.text;
  } else {
    const result = await generateText(call);
    for (const step of result.steps) for (const c of step.toolCalls) console.log(JSON.stringify({ event: 'tool-call', tool: c.toolName }));
    text = result.text;
  }
  console.log(JSON.stringify({ done: text }));
  await browser.close().catch(() => {});
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
