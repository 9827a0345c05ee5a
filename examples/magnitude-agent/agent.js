// A pixel agent: magnitude-core 0.3.1 (pinned by this folder's package-lock.json) sees a screenshot
// of the page and acts by mouse coordinates (`mouse:click {x, y}`), its model asked through BAML with
// the answer's shape described in the prompt ("Answer in JSON using this schema: ..."), never a tool
// and never a response_format. It drives trapline's browser (TRAPLINE_CDP_URL); its model is
// whatever OPENAI_BASE_URL serves: with `trapline run --agent external --model adversary` it is
// trapline's adversary, which answers coordinates from the run's own browser (docs/agent-frameworks.md,
// "Agents that call no tools").
//
// Switches:
//   AGENT_MODEL=NAME    the model name to ask for (default adversary)
import { startBrowserAgent } from 'magnitude-core';

async function main() {
  for (const k of ['OPENAI_BASE_URL', 'TRAPLINE_CDP_URL', 'TRAPLINE_START_URL', 'TRAPLINE_TASK']) {
    if (!process.env[k]) throw new Error(`${k} is not set`);
  }
  // BAML's HTTP client (Rust, reqwest) sends the model call to HTTP_PROXY unless NO_PROXY names the
  // endpoint's bare host (reqwest ignores host:port entries): the world's proxy would refuse it
  // (unmapped_host). The model endpoint is trapline's own, on loopback, outside the world.
  const modelHost = new URL(process.env.OPENAI_BASE_URL).hostname;
  for (const k of ['NO_PROXY', 'no_proxy']) {
    process.env[k] = [process.env[k], modelHost].filter(Boolean).join(',');
  }
  const agent = await startBrowserAgent({
    browser: { cdp: process.env.TRAPLINE_CDP_URL },
    url: process.env.TRAPLINE_START_URL,
    narrate: false,
    llm: {
      provider: 'openai-generic',
      options: { baseUrl: process.env.OPENAI_BASE_URL, model: process.env.AGENT_MODEL || 'adversary', apiKey: process.env.OPENAI_API_KEY || 'dummy' },
    },
  });
  try {
    await agent.act(process.env.TRAPLINE_TASK);
  } finally {
    await agent.stop();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(`magnitude agent: ${err && err.message ? err.message : err}`);
  process.exit(1);
});
