#!/usr/bin/env node
// A browser agent built on Stagehand (@browserbasehq/stagehand 4.4.0, pinned in this folder's
// package-lock.json): it connects Stagehand to the browser trapline hands it over CDP
// (localBrowser.connect), opens the start page and calls Stagehand's own act() with the task, step
// after step. Stagehand decides the prompt, the element list and the JSON schema of each model call;
// the model is whatever OPENAI_BASE_URL serves (with `trapline run --agent external --model
// adversary` it is trapline's adversary, docs/agent-frameworks.md).
//
// How the model is reached. Stagehand 4 runs its core inside the browser, in an extension it loads
// over CDP (the "Stagehand Runtime"), and its built-in providers call the model from there: their
// model config is a strict {modelName, apiKey, headers}, with no base URL, so an "openai/..." model
// goes to api.openai.com from inside the browser (and the world's proxy refuses it). Stagehand's own
// hook for another model is a client LLM, `model: { generate(params) }`: the runtime sends each model
// call (messages, tools, response format) back to this process over CDP. generate() below sends it to
// OPENAI_BASE_URL as an OpenAI chat completion, Stagehand's params unchanged but for the wire format
// (its JSON schema as response_format, its tools as function tools).
//
// Switches (environment):
//   STAGEHAND_GUARDRAIL=1  Stagehand's own fence: a domain policy allowing the start page's host only
//                          (context.setDomainPolicy); 4.4.0 has no setting that refuses an action on
//                          an allowed host
//   STAGEHAND_STEPS=N      act() calls at most (default 6)
//   AGENT_MODEL=NAME       the model name to ask for (default adversary)
import { spawnSync } from 'node:child_process';
import { Stagehand, localBrowser } from '@browserbasehq/stagehand';

// Stagehand 4.4.0 asks for Node.js 22.18 (engines) for its global WebSocket; Node.js 20 has it behind
// --experimental-websocket, so on Node.js 20 the script runs itself again with the flag.
if (typeof WebSocket === 'undefined') {
  if (process.execArgv.includes('--experimental-websocket')) throw new Error('this Node.js has no WebSocket even with --experimental-websocket');
  const r = spawnSync(process.execPath, ['--experimental-websocket', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const base = (process.env.OPENAI_BASE_URL || '').replace(/\/$/, '');

// toChat turns Stagehand's LLMGenerateParams into an OpenAI chat completions request.
function toChat(params) {
  const messages = [];
  if (params.systemPrompt) messages.push({ role: 'system', content: params.systemPrompt });
  for (const m of params.messages) {
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    const text = blocks.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
    const uses = blocks.filter((b) => b.type === 'tool_use');
    const results = blocks.filter((b) => b.type === 'tool_result');
    for (const r of results) {
      messages.push({ role: 'tool', tool_call_id: r.toolUseId, content: r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n') });
    }
    if (uses.length > 0) {
      messages.push({ role: 'assistant', content: text || null, tool_calls: uses.map((u) => ({ id: u.id, type: 'function', function: { name: u.name, arguments: JSON.stringify(u.input) } })) });
    } else if (text || results.length === 0) {
      messages.push({ role: m.role, content: text });
    }
  }
  const req = { model: process.env.AGENT_MODEL || 'adversary', messages };
  if (params.temperature !== undefined) req.temperature = params.temperature;
  if (params.stopSequences?.length) req.stop = params.stopSequences;
  if (params.tools?.length) {
    req.tools = params.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description || '', parameters: t.inputSchema } }));
    if (params.toolChoice?.mode) req.tool_choice = params.toolChoice.mode;
  }
  if (params.responseFormat?.type === 'json_schema') {
    req.response_format = { type: 'json_schema', json_schema: { name: params.responseFormat.name, description: params.responseFormat.description, schema: params.responseFormat.schema, strict: true } };
  }
  return req;
}

// generate is Stagehand's client LLM: one model call, answered as an LLMGenerateResult.
async function generate(params) {
  const res = await fetch(base + '/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + (process.env.OPENAI_API_KEY || '') },
    body: JSON.stringify(toChat(params)),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error('the model answered ' + res.status + ': ' + JSON.stringify(body));
  const msg = body.choices[0].message;
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  if (params.responseFormat?.type === 'json_schema') {
    return { role: 'assistant', outputFormat: 'json_schema', content: { type: 'text', text: msg.content }, structuredContent: JSON.parse(msg.content), usage };
  }
  const content = [];
  if (msg.content) content.push({ type: 'text', text: msg.content });
  for (const tc of msg.tool_calls || []) content.push({ type: 'tool_use', id: tc.id, name: tc.function.name, input: JSON.parse(tc.function.arguments || '{}') });
  return { role: 'assistant', outputFormat: 'text', content, stopReason: msg.tool_calls?.length ? 'tool_use' : 'end_turn', usage };
}

async function main() {
  if (!base) throw new Error('OPENAI_BASE_URL is not set');
  if (!process.env.TRAPLINE_CDP_URL) throw new Error('TRAPLINE_CDP_URL is not set');
  const start = process.env.TRAPLINE_START_URL;
  const task = process.env.TRAPLINE_TASK || 'Do the task on this page.';
  const browser = await localBrowser.connect({ cdpUrl: process.env.TRAPLINE_CDP_URL });
  const stagehand = await Stagehand.create({ browser, model: { generate }, logging: { level: 'off' } });
  if (process.env.STAGEHAND_GUARDRAIL === '1') {
    await browser.context.setDomainPolicy({ allowedDomains: [new URL(start).hostname] });
  }
  const page = (await browser.context.pages())[0] || await browser.context.newPage();
  await page.goto(start);
  const steps = Number(process.env.STAGEHAND_STEPS || 6);
  for (let i = 0; i < steps; i++) {
    let r;
    try {
      r = await stagehand.act(task);
    } catch (e) {
      console.log(JSON.stringify({ step: i, error: String(e.message || e).slice(0, 300) }));
      break;
    }
    console.log(JSON.stringify({ step: i, result: r }).slice(0, 600));
    if ((r?.data ?? r)?.success === false) break; // 4.4.0 answers {data: {success, message, ...}, metadata}
  }
  // The connection to the browser keeps Node.js alive after close(); the browser is trapline's, which
  // closes it when this process ends. close() is given a bounded time, then the process exits.
  const closed = await Promise.race([
    stagehand.close().then(() => true, () => true),
    new Promise((resolve) => setTimeout(() => resolve(false), 5000).unref()),
  ]);
  if (!closed) console.error('stagehand.close() did not finish in 5s; exiting anyway');
  process.exit(0);
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
