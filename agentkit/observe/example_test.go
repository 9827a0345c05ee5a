package observe_test

import (
	"errors"
	"fmt"

	"github.com/trapline/trapline/agentkit/observe"
)

const snapshot = `- generic [ref=e1]:
  - heading "Pratiche" [level=1] [ref=e2]
  - button "Salva" [ref=e3]
  - 'link "Guida: uso" [ref=e4] [cursor=pointer]':
    - /url: /guida
  - text: Stato
  - combobox "Stato" [ref=e5]:
    - option "aperta" [selected]
    - option "chiusa"`

func Example() {
	obs, err := observe.Parse("s3f9k2", "https://staging.test/pratiche/", snapshot)
	if err != nil {
		panic(err)
	}
	view, _ := obs.Compact(observe.CompactOptions{IncludeText: true})
	fmt.Print(view.Text)

	save, _ := obs.Find("button", "Salva")
	fmt.Println("act on", save.Ref, "as Playwright ref", save.RawRef)

	_, err = obs.Lookup("old000:e3") // a ref the planner kept from an older snapshot
	fmt.Println(errors.Is(err, observe.ErrStaleRef))
	// Output:
	// s3f9k2:e2 heading "Pratiche" [level=1]
	// s3f9k2:e3 button "Salva"
	// s3f9k2:e4 link "Guida: uso" -> /guida
	//   text: "Stato"
	// s3f9k2:e5 combobox "Stato"
	//   option "aperta" [selected]
	//   option "chiusa"
	// act on s3f9k2:e3 as Playwright ref e3
	// true
}

func ExampleObservation_Compact_capped() {
	obs, _ := observe.Parse("s3f9k2", "https://staging.test/", snapshot)
	view, _ := obs.Compact(observe.CompactOptions{MaxElements: 2})
	fmt.Print(view.Text)
	fmt.Println(view.Kept, view.Total, view.Complete)
	// Output:
	// s3f9k2:e2 heading "Pratiche" [level=1]
	// s3f9k2:e3 button "Salva"
	// … 2 more elements not shown (truncated)
	// 2 4 false
}
