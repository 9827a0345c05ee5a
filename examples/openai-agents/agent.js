#!/usr/bin/env node
// A browser agent built on the OpenAI Agents SDK (@openai/agents 0.20.0, pinned in this folder's
// package-lock.json): the SDK owns the loop and calls the model (the Responses API by default); the
// agent's own function tools (navigate, snapshot, click, fill, press) run on the browser trapline hands
// it over CDP, with the playwright-core of this folder's own lockfile.
//
// The model is whatever OPENAI_BASE_URL serves: with `trapline run --agent external --model adversary`
// it is trapline's adversary (docs/agent-frameworks.md).
//
// Switches (environment):
//   AGENT_GUARDRAIL=1   the example's own Agents SDK tool input guardrail: a click on an element whose
//                       accessible name (read from the page, not from the model) says delete, remove,
//                       cancel or send is rejected before the tool runs (its message goes to the model)
//   AGENT_API=chat      the Chat Completions API instead of the Responses API
//   AGENT_STREAM=1      stream the model's answers
//   AGENT_OUTPUT=schema a structured final answer (outputType: a zod schema, sent as a JSON schema)
//   AGENT_MODEL=NAME    the model name to ask for (default adversary)
// Tracing is off (OPENAI_AGENTS_DISABLE_TRACING): the SDK would export traces to api.openai.com.
import { Agent, run, tool, defineToolInputGuardrail, setOpenAIAPI, setTracingDisabled } from '@openai/agents';
import { chromium } from 'playwright-core';
import { z } from 'zod';

setTracingDisabled(true);
if (process.env.AGENT_API === 'chat') setOpenAIAPI('chat_completions');

// The words a destructive or outward control is named with, in the portal's language and in English.
const RISKY = /\b(elimin\w*|cancell\w*|rimuov\w*|delete|remove|destroy|invia|send|svuota|purge)\b/i;

async function main() {
  if (!process.env.OPENAI_BASE_URL) throw new Error('OPENAI_BASE_URL is not set');
  if (!process.env.TRAPLINE_CDP_URL) throw new Error('TRAPLINE_CDP_URL is not set');
  const browser = await chromium.connectOverCDP(process.env.TRAPLINE_CDP_URL);
  const ctx = browser.contexts()[0] || await browser.newContext();
  let page = ctx.pages()[0] || await ctx.newPage();
  ctx.on('page', (p) => { page = p; });
  page.on('dialog', (d) => d.accept().catch(() => {}));
  const el = (ref) => page.locator('aria-ref=' + ref);
  const settle = () => page.waitForLoadState().catch(() => {});

  const refGuard = defineToolInputGuardrail({
    name: 'no_destructive_click',
    run: async ({ toolCall }) => {
      let args = {};
      try { args = JSON.parse(toolCall.arguments || '{}'); } catch { /* judged on nothing */ }
      // The element's own name, read from the page: the model's description of it is not trusted.
      const name = await el(args.ref).evaluate((n) => [n.innerText, n.getAttribute('aria-label'), n.getAttribute('title'), n.value].filter(Boolean).join(' ')).catch(() => '');
      if (RISKY.test(name)) {
        return { behavior: { type: 'rejectContent', message: `refused by the agent's guardrail: "${name.trim().slice(0, 80)}" looks destructive or outward` }, outputInfo: { ref: args.ref, name } };
      }
      return { behavior: { type: 'allow' } };
    },
  });
  const guard = process.env.AGENT_GUARDRAIL === '1' ? [refGuard] : [];

  const tools = [
    tool({ name: 'navigate', description: 'Open a URL in the browser', parameters: z.object({ url: z.string() }),
      execute: async ({ url }) => { await page.goto(url); return 'navigated to ' + page.url(); } }),
    tool({ name: 'snapshot', description: 'Read the page: its accessibility snapshot with element refs', parameters: z.object({}),
      execute: async () => '- Page URL: ' + page.url() + '\n```yaml\n' + await page.ariaSnapshot({ mode: 'ai' }) + '\n```' }),
    tool({ name: 'click', description: 'Click an element', parameters: z.object({ ref: z.string().describe('the element ref from the snapshot') }),
      inputGuardrails: guard,
      execute: async ({ ref }) => { await el(ref).click({ timeout: 5000 }); await settle(); return 'clicked'; } }),
    tool({ name: 'fill', description: 'Type text into a field, replacing its value',
      parameters: z.object({ ref: z.string().describe('the element ref from the snapshot'), text: z.string() }),
      execute: async ({ ref, text }) => { await el(ref).fill(text, { timeout: 5000 }); return 'filled'; } }),
    tool({ name: 'press', description: 'Press a keyboard key', parameters: z.object({ key: z.string().describe('the key, e.g. Enter') }),
      execute: async ({ key }) => { await page.keyboard.press(key); await settle(); return 'pressed ' + key; } }),
  ];

  const agent = new Agent({
    name: 'trapline-openai-agents-example',
    instructions: 'You are a browser agent. Use the tools to do the task on the start page.',
    model: process.env.AGENT_MODEL || 'adversary',
    tools,
    ...(process.env.AGENT_OUTPUT === 'schema' ? { outputType: z.object({ done: z.boolean(), summary: z.string() }) } : {}),
  });
  const task = process.env.TRAPLINE_TASK || 'Do the task on the start page.';
  const result = await run(agent, task, { maxTurns: 40, stream: process.env.AGENT_STREAM === '1' });
  if (process.env.AGENT_STREAM === '1') {
    for await (const ev of result) {
      if (ev.type === 'run_item_stream_event') console.log(JSON.stringify({ event: ev.name, item: ev.item.type }));
    }
    await result.completed;
  }
  console.log(JSON.stringify({ done: result.finalOutput }));
  await browser.close().catch(() => {});
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
