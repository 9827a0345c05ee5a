package mutate

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

// fieldMutants says, for each structured field of the policy file, which mutant IDs loosen it (a
// regexp) or, after "none: ", why it has none. The capability settings and budgets need no row:
// their mutants follow from the policy package's table.
var fieldMutants = map[string]string{
	"version":                                     "none: 1 is the only version that loads",
	"mode":                                        `^policy/mode/act$`,
	"navigation.allow.host":                       `^policy/navigation\.allow/add-host:`,
	"navigation.allow.paths":                      `^policy/navigation\.allow/[^/]+/widen:`,
	"navigation.deny_paths":                       `^policy/navigation\.deny_paths/drop:`,
	"navigation.static_assets":                    `^policy/navigation\.static_assets/add-host:`,
	"navigation.on_violation":                     `^policy/navigation\.on_violation/`,
	"actions.unnamed":                             `^policy/actions\.unnamed/allow$`,
	"actions.deny_words":                          `^policy/actions\.deny_words/`,
	"actions.exceptions.role":                     "none: a changed role allows another element, not more; widen-page stands for the exception",
	"actions.exceptions.name":                     "none: a changed name allows another element, not more; widen-page stands for the exception",
	"actions.exceptions.page":                     `^policy/actions\.exceptions/.*/widen-page$`,
	"actions.writes.method":                       `^policy/actions\.writes/.*/widen-method$`,
	"actions.writes.path":                         `^policy/actions\.writes/.*/widen-path$`,
	"actions.writes.host":                         `^policy/actions\.writes/.*/drop-host$`,
	"actions.writes.form":                         `^policy/actions\.writes/.*/widen-form:`,
	"actions.writes.deny_fields":                  `^policy/actions\.writes/.*/drop-deny-field:`,
	"actions.writes.operations":                   `^policy/actions\.writes/.*/drop-operations$`,
	"actions.require_approval.categories":         "none yet: the reference policy has no require_approval",
	"actions.require_approval.writes.method":      "none yet: the reference policy has no require_approval",
	"actions.require_approval.writes.path":        "none yet: the reference policy has no require_approval",
	"actions.require_approval.writes.host":        "none yet: the reference policy has no require_approval",
	"actions.require_approval.writes.form":        "none yet: the reference policy has no require_approval",
	"actions.require_approval.writes.deny_fields": "none yet: the reference policy has no require_approval",
	"actions.require_approval.writes.operations":  "none yet: the reference policy has no require_approval",
	"actions.require_approval.kinds":              "none yet: the reference policy has no require_approval",
	"requests.deny_words":                         `^policy/requests\.deny_words/drop:`,
	"requests.outside_url_param":                  `^policy/requests\.outside_url_param/allow$`,
	"requests.outside_url_param_paths":            "none yet: the reference policy lists no such path to widen",
	"requests.max_body_bytes":                     `^policy/requests\.max_body_bytes/x`,
	"requests.unreadable_bodies":                  `^policy/requests\.unreadable_bodies/allow$`,
	"dialogs.rules.text":                          "none yet: the reference policy has no dialog rule; dialogs/accept opens the default",
	"dialogs.rules.after.role":                    "none yet: the reference policy has no dialog rule; dialogs/accept opens the default",
	"dialogs.rules.after.name":                    "none yet: the reference policy has no dialog rule; dialogs/accept opens the default",
	"dialogs.rules.then":                          "none yet: the reference policy has no dialog rule; dialogs/accept opens the default",
}

// TestEveryPolicyFieldHasMutants walks the policy's fields (policy.Fields, from the Policy type's
// tags) and fails on any that the mutant generator misses: a field with neither a mutant of the
// reference policy or testdata/every_field.yml nor a row above saying why it has none.
func TestEveryPolicyFieldHasMutants(t *testing.T) {
	var ids []string
	for _, file := range []string{"../../policies/reference.yml", "../../agentkit/policy/testdata/every_field.yml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		muts, err := PolicyMutants(file, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range muts {
			ids = append(ids, m.ID)
		}
	}
	known := map[string]bool{}
	for _, f := range policy.Fields() {
		known[f.Key] = true
		want, ok := fieldMutants[f.Key]
		if _, flat := flatFields()[f.Key]; flat {
			want, ok = "^policy/"+regexp.QuoteMeta(f.Key)+"/", true
		}
		switch {
		case !ok:
			t.Errorf("%s: the mutant generator misses it: add its mutants (policy.go) and a row to fieldMutants, or a row saying why it has none", f.Key)
		case strings.HasPrefix(want, "none"):
		case !matchesAny(regexp.MustCompile(want), ids):
			t.Errorf("%s: no mutant matches %s", f.Key, want)
		}
	}
	for k := range fieldMutants {
		if !known[k] {
			t.Errorf("fieldMutants row %s: no such field of the policy", k)
		}
	}
}

func matchesAny(re *regexp.Regexp, ids []string) bool {
	for _, id := range ids {
		if re.MatchString(id) {
			return true
		}
	}
	return false
}
