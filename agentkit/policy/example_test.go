package policy_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
)

func Example() {
	p, err := policy.Load("../../policies/reference.yml")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := p.Decide(policy.Input{
		Kind:   policy.KindClick,
		Target: &policy.Target{Role: "button", Name: "Ｅlimina pratica"},
		Page:   "http://portale.interno.test/pratiche/4",
		Usage:  policy.Usage{Actions: 3, Elapsed: 20 * time.Second},
	})
	fmt.Println(d.Allow, d.Rule)
	fmt.Println(d.Reason)

	d = p.DecideRequest(policy.Request{Method: "GET", URL: "http://portale.interno.test/pratiche/%2e%2e/admin", Navigation: true})
	fmt.Println(d.Allow, d.Rule)
	// Output:
	// false deny_word
	// name "Ｅlimina pratica" matches deny word "elimin" (destructive)
	// false deny_path
}

func ExampleParse_errors() {
	_, err := policy.Parse("policies/x.yml", []byte(`version: 1
navigation:
  allow:
    - host: portale.interno.test
      paths: ["^/", "("]
budget: {max_actions: 0}
`))
	var errs policy.Errors
	if errors.As(err, &errs) {
		for _, e := range errs {
			fmt.Println(e)
		}
	}
	fmt.Println(errors.Is(err, policy.CodeInvalidRegex))
	// Output:
	// policies/x.yml:5:21: navigation.allow[0].paths[1]: invalid regex "(": missing closing )
	// policies/x.yml:6:23: budget.max_actions: must be a positive integer, got 0
	// true
}

func ExampleNormalizeText() {
	for _, s := range []string{"Ｅlimina", "Eli\u200bmina", "Еlimina", "ELIMINA", "Torna all'elenco"} {
		fmt.Println(policy.NormalizeText(s))
	}
	// Output:
	// elimina
	// elimina
	// elimina
	// elimina
	// torna all elenco
}
