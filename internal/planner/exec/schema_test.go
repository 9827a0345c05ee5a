package exec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner"
)

type schema struct {
	Required             []string                   `json:"required"`
	Properties           map[string]json.RawMessage `json:"properties"`
	AdditionalProperties *bool                      `json:"additionalProperties"`
}

func loadSchema(t *testing.T, name string) schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("schema", name))
	if err != nil {
		t.Fatal(err)
	}
	var s schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("schema/%s: %v", name, err)
	}
	return s
}

// jsonFields lists the JSON names of v's fields, and those without omitempty.
func jsonFields(t reflect.Type) (all, always []string) {
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		all = append(all, name)
		if !strings.Contains(opts, "omitempty") {
			always = append(always, name)
		}
	}
	slices.Sort(all)
	slices.Sort(always)
	return all, always
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func TestObservationSchemaMatchesMessage(t *testing.T) {
	s := loadSchema(t, "observation.schema.json")
	all, always := jsonFields(reflect.TypeFor[Message]())
	if !slices.Equal(keys(s.Properties), all) {
		t.Fatalf("schema properties %v, Message fields %v", keys(s.Properties), all)
	}
	if !slices.Equal(sorted(s.Required), always) {
		t.Fatalf("schema required %v, Message fields always written %v", sorted(s.Required), always)
	}
	var v struct {
		Const int `json:"const"`
	}
	if err := json.Unmarshal(s.Properties["v"], &v); err != nil || v.Const != ProtocolVersion {
		t.Fatalf("schema v const = %d (%v), ProtocolVersion %d", v.Const, err, ProtocolVersion)
	}
	var hist struct {
		Items schema `json:"items"`
	}
	if err := json.Unmarshal(s.Properties["history"], &hist); err != nil {
		t.Fatal(err)
	}
	stepAll, stepAlways := jsonFields(reflect.TypeFor[planner.Step]())
	if !slices.Equal(keys(hist.Items.Properties), stepAll) || !slices.Equal(sorted(hist.Items.Required), stepAlways) {
		t.Fatalf("history items %v required %v, planner.Step fields %v", keys(hist.Items.Properties), hist.Items.Required, stepAll)
	}
}

func TestActionSchemaMatchesAction(t *testing.T) {
	s := loadSchema(t, "action.schema.json")
	all, always := jsonFields(reflect.TypeFor[action.Action]())
	if !slices.Equal(keys(s.Properties), all) || !slices.Equal(sorted(s.Required), always) {
		t.Fatalf("schema properties %v required %v; action.Action fields %v always %v", keys(s.Properties), s.Required, all, always)
	}
	if s.AdditionalProperties == nil || *s.AdditionalProperties {
		t.Fatal("the action schema must forbid other fields, as action.Parse does")
	}
	var kinds struct {
		Enum []string `json:"enum"`
	}
	if err := json.Unmarshal(s.Properties["action"], &kinds); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range action.Kinds() {
		want = append(want, string(k))
	}
	if !slices.Equal(kinds.Enum, want) {
		t.Fatalf("schema kinds %v, action.Kinds %v", kinds.Enum, want)
	}
}
