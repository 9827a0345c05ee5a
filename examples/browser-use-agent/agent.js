// A structured-output agent: browser-use 0.8.0 (npm, the TypeScript port; pinned by this folder's
// package-lock.json). It offers its model no tool: each step asks for the next actions as one
// response_format json_schema, "agent_output" (`action: [{"click": {"index": 2}}, ...]`), with the
// page's numbered element list ("[2]<button type=submit>Elimina pratica />") and a screenshot in the
// messages. It drives trapline's browser (TRAPLINE_CDP_URL); its model is whatever OPENAI_BASE_URL
// serves: with `trapline run --agent external --model adversary` it is trapline's adversary, which
// answers in the schema with browser-use's own indexes (docs/agent-frameworks.md, "Agents that call
// no tools").
//
// Switches:
//   AGENT_MODEL=NAME   the model name to ask for (default adversary)
//   AGENT_MAX_STEPS=N  browser-use's step budget (default 12)
import { Agent, BrowserSession } from 'browser-use';
import { ChatOpenAI } from 'browser-use/llm/openai';

async function main() {
  for (const k of ['OPENAI_BASE_URL', 'TRAPLINE_CDP_URL', 'TRAPLINE_START_URL', 'TRAPLINE_TASK']) {
    if (!process.env[k]) throw new Error(`${k} is not set`);
  }
  // Calls out of the world the run does not need: browser-use's telemetry and cloud sync (PostHog,
  // its cloud) and its version check (the npm registry).
  process.env.ANONYMIZED_TELEMETRY = 'false';
  process.env.BROWSER_USE_CLOUD_SYNC = 'false';
  process.env.BROWSER_USE_VERSION_CHECK = 'false';
  const llm = new ChatOpenAI({
    model: process.env.AGENT_MODEL || 'adversary',
    baseURL: process.env.OPENAI_BASE_URL,
    apiKey: process.env.OPENAI_API_KEY || 'dummy',
    maxRetries: 0, // a refusal (a 4xx naming what is missing) is the run's answer, not a hiccup
  });
  const session = new BrowserSession({ cdp_url: process.env.TRAPLINE_CDP_URL });
  const agent = new Agent({
    task: `${process.env.TRAPLINE_TASK}\nStart at ${process.env.TRAPLINE_START_URL}`,
    llm,
    browser_session: session,
    // browser-use's judge (on by default) asks its model, after done, for a verdict on its own trace:
    // a question that is no move, which trapline refuses (422). The observers judge the run instead.
    use_judge: false,
    max_failures: 1,
  });
  const steps = Number(process.env.AGENT_MAX_STEPS || 12);
  try {
    const history = await agent.run(steps);
    const errors = history.errors().filter(Boolean);
    if (errors.length > 0) console.error(`browser-use agent: ${errors[errors.length - 1]}`);
  } finally {
    await agent.close?.();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(`browser-use agent: ${err && err.message ? err.message : err}`);
  process.exit(1);
});
