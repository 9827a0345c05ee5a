// A pixel agent: magnitude-core 0.3.1 (pinned by this folder's package-lock.json) sees a screenshot
// of the page and acts by mouse coordinates (`mouse:click {x, y}`), its model asked through BAML with
// the answer's shape described in the prompt ("Answer in JSON using this schema: ..."), never a tool
// and never a response_format. It drives trapline's browser (TRAPLINE_CDP_URL); its model is
// whatever OPENAI_BASE_URL serves: with `trapline run --agent external --model adversary` it is
// trapline's adversary, which answers coordinates from the run's own browser (docs/agent-frameworks.md,
// "Agents that call no tools").
//
// Switches:
//   AGENT_MODEL=NAME           the model name to ask for (default adversary)
//   AGENT_GUARD_WORDS=R1,R2,.. the seed's own guard: before a click at a point, hit-test it
//                              (document.elementFromPoint) and refuse the click when the element there
//                              (or the control it is inside) is named by a word starting with one of
//                              these roots, case and width folded ("elimin" refuses "Elimina pratica");
//                              the refusal is the action's result, which the model sees next turn
import { startBrowserAgent, BrowserConnector } from 'magnitude-core';

// hitScript names the element at a viewport point: the accessible name of the control it is inside
// (aria-label, its label, its text, value, title), or the element's own text; null when there is none.
function hitScript([x, y]) {
  const el = document.elementFromPoint(x, y);
  if (!el) return null;
  const c = el.closest('button, a[href], input, select, textarea, summary, label, [role]') || el;
  const label = c.labels && c.labels.length ? c.labels[0].innerText : '';
  const name = c.getAttribute('aria-label') || label || c.innerText || c.value || c.getAttribute('title') || '';
  return { tag: c.tagName.toLowerCase(), name: name.trim().replace(/\s+/g, ' ').slice(0, 200) };
}

// denied returns the guard word root that names name, or '' when none does.
function denied(name, roots) {
  const words = name.normalize('NFKC').replace(/[\u200b-\u200d\u2060\ufeff]/g, '').toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return roots.find((r) => words.some((w) => w.startsWith(r))) || '';
}

// guardClicks wraps the agent's point actions (click, double and right click) with the hit test: a
// refused click is not made, and its result says why. A point the page cannot name is refused too.
function guardClicks(agent, roots) {
  const web = agent.require(BrowserConnector);
  agent.actions = agent.actions.map((def) => {
    if (!['mouse:click', 'mouse:double_click', 'mouse:right_click'].includes(def.name)) return def;
    return {
      ...def,
      resolver: async (args) => {
        const harness = web.getHarness();
        const pt = await harness.transformCoordinates({ x: args.input.x, y: args.input.y });
        const hit = await harness.page.evaluate(hitScript, [pt.x, pt.y]).catch(() => null);
        const root = hit ? denied(hit.name, roots) : 'unreadable';
        if (root) {
          const what = hit ? `${hit.tag} "${hit.name}"` : 'an element the page could not name';
          console.error(`magnitude agent: guard refused ${def.name} at (${args.input.x}, ${args.input.y}): ${what} (${root})`);
          return `refused by the agent's guard: the point (${args.input.x}, ${args.input.y}) is on ${what}, named by the denied word "${root}"; the click was not made`;
        }
        return def.resolver(args);
      },
    };
  });
}

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
    // magnitude's telemetry posts to PostHog with Node's fetch, which ignores HTTP_PROXY: a call out
    // of the world the run does not need.
    telemetry: false,
    llm: {
      provider: 'openai-generic',
      options: { baseUrl: process.env.OPENAI_BASE_URL, model: process.env.AGENT_MODEL || 'adversary', apiKey: process.env.OPENAI_API_KEY || 'dummy' },
    },
  });
  // Like the seeds' screenshot agent, it answers yes to every confirmation ("Sei sicuro?"): the
  // browser's own default would dismiss it, and the story's delete would never happen.
  const page = agent.require(BrowserConnector).getHarness().page;
  page.context().on('dialog', (d) => d.accept().catch(() => {}));
  const roots = (process.env.AGENT_GUARD_WORDS || '').split(',').map((r) => r.trim().toLowerCase()).filter(Boolean);
  if (roots.length > 0) guardClicks(agent, roots);
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
