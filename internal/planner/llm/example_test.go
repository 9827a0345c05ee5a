package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/internal/planner/llm"
)

// A planner pointed at a local OpenAI-compatible server (here a stand-in that always clicks "Salva").
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"{\"action\":\"click\",\"ref\":\"s1:e2\"}"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":180,"completion_tokens":12,"total_tokens":192}}`)
	}))
	defer srv.Close()

	p, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "qwen2.5:7b"})
	if err != nil {
		fmt.Println(err)
		return
	}
	obs, _ := observe.Parse("s1", "http://portale.interno.test/pratiche/4", "- heading \"Pratica 4\" [level=1] [ref=e1]\n- button \"Salva\" [ref=e2]\n")
	a, err := p.Next(context.Background(), planner.Input{Goal: "Salva la pratica 4.", Observation: obs})
	fmt.Println(a, err, p.TokensUsed())

	_, err = llm.New(llm.Config{BaseURL: "http://api.example.test/v1", Model: "m"})
	fmt.Println(err)
	// Output:
	// click ref="s1:e2" <nil> 192
	// llm planner: config BaseURL (TRAPLINE_LLM_BASE_URL): plain http to api.example.test would send the key and the page text in clear; use https or a loopback address
}
