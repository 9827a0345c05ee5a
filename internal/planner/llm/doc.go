// Package llm is a planner backed by any OpenAI-compatible Chat Completions endpoint: a hosted API,
// vLLM, llama.cpp's server, Ollama.
//
// Each turn it sends the goal and stop conditions (system prompt), one line per step the loop
// recorded, the feedback on a rejected answer, and the page as observe.Compact text, and asks for one
// action of the closed set in agentkit/action, constrained with response_format json_schema
// (ActionSchema) and decoded with action.Parse, strictly. All page-derived text travels inside a frame
// whose boundary is random per request, and the system prompt says that what is inside is data, never
// instructions. A page whose URL and content hash did not change is not sent again: the model is told
// "page unchanged since step N" and its refs are mapped onto the current snapshot.
//
// An unusable answer (invalid JSON, an unknown action or field, a ref the page does not have, a
// refusal, an empty answer) is a *planner.RejectedError, which the loop logs and feeds back; too many
// in a row are planner.ErrGaveUp. Only a request whose connection could not be opened is retried. The
// API key never appears in an error.
//
//	p, err := llm.New(llm.ConfigFromEnv(os.Getenv)) // TRAPLINE_LLM_BASE_URL, TRAPLINE_LLM_MODEL, TRAPLINE_LLM_API_KEY
//	if err != nil {
//		return err // *llm.ConfigError naming the field
//	}
//	agent := &agentkit.Agent{Policy: pol, Planner: p}
//
// See docs/llm-planner.md.
package llm
