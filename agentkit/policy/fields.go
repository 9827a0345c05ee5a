package policy

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Fields lists every field of the policy file that holds a value (sections and lists of mappings
// aside), in the order of the Policy type. Each exported field's `policy` tag names its key under
// its parent's (a tag with a dot, like dialogs.rules, is a path from the parent); "-" marks a field
// no file sets. The flat fields carry their row of
// flatFields. A test walks the same tags to prove that the decoder, Clone, Marshal, Summary and the
// mutant generator each handle every field.
func Fields() []Field {
	rows := map[string]Field{}
	for _, f := range flatFields {
		rows[f.Key] = f
	}
	var out []Field
	seen := map[string]bool{}
	walkFields(reflect.TypeFor[Policy](), "", func(key string, sf reflect.StructField) {
		if seen[key] || structBelow(sf.Type) != nil {
			return // Host and Port share the key host
		}
		seen[key] = true
		f, ok := rows[key]
		if !ok {
			f = Field{Key: key}
		}
		out = append(out, f)
	})
	return out
}

// patternType and durationType are leaves of the walk, not structs to descend into.
var (
	patternType  = reflect.TypeFor[Pattern]()
	durationType = reflect.TypeFor[time.Duration]()
)

// walkFields calls visit for each tagged exported field below t, with its key, and descends into
// structs, pointers to structs and slices of them. A field without a tag is visited with the key ""
// so that a test can name it.
func walkFields(t reflect.Type, prefix string, visit func(key string, f reflect.StructField)) {
	for f := range fieldsOf(t) {
		tag := f.Tag.Get("policy")
		if tag == "-" {
			continue
		}
		key := tag
		if tag != "" && prefix != "" {
			key = prefix + "." + tag
		}
		if tag == "" {
			key = ""
		}
		visit(key, f)
		if inner := structBelow(f.Type); inner != nil && tag != "" {
			walkFields(inner, key, visit)
		}
	}
}

// fieldsOf yields the exported fields of struct type t.
func fieldsOf(t reflect.Type) func(func(reflect.StructField) bool) {
	return func(yield func(reflect.StructField) bool) {
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && !yield(f) {
				return
			}
		}
	}
}

// structBelow is the struct type a field of type t holds (directly, by pointer or as slice
// elements), or nil for a leaf.
func structBelow(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == patternType || t == durationType {
		return nil
	}
	return t
}

// flatHandlers are the decoder's handlers of the flat fields under section ("" for the root,
// "budget"): each checks its value as its row says.
func (d *decoder) flatHandlers(section string, p *Policy) handlers {
	h := handlers{}
	for _, f := range flatFields {
		key, ok := strings.CutPrefix(f.Key, section+".")
		if section == "" {
			key, ok = f.Key, !strings.Contains(f.Key, ".")
		}
		if !ok || f.custom {
			continue
		}
		h[key] = func(v *yaml.Node, name string) { d.flat(f, v, name, p) }
	}
	return h
}

// flat decodes one flat field into p.
func (d *decoder) flat(f Field, v *yaml.Node, name string, p *Policy) {
	switch {
	case f.setting != nil:
		names := make([]string, len(f.Allowed))
		for i, a := range f.Allowed {
			names[i] = string(a)
		}
		if s, ok := d.enum(v, name, names...); ok {
			*f.setting(p) = Setting(s)
		}
	case f.seconds != nil:
		if x, ok := d.positive(v, name, int(maxSeconds)); ok {
			*f.seconds(&p.Budget) = time.Duration(x) * time.Second
		}
	case f.count != nil:
		x, ok := d.positive(v, name, math.MaxInt32)
		if ok && x < f.least {
			d.Fail(v, name, CodeInvalidValue, "%s %d would refuse every action: the %d-th identical action in a row is refused, so at least %d",
				name[strings.LastIndexByte(name, '.')+1:], x, x, f.least)
			return
		}
		if ok {
			*f.count(&p.Budget) = x
		}
	}
}

// flatDoc is the flat fields of p under section for Marshal, by key.
func flatDoc(p *Policy, section string) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range flatFields {
		key, ok := strings.CutPrefix(f.Key, section+".")
		if section == "" {
			key, ok = f.Key, !strings.Contains(f.Key, ".")
		}
		if !ok || f.custom {
			continue
		}
		switch {
		case f.setting != nil:
			out[key] = *f.setting(p)
		case f.count != nil:
			out[key] = *f.count(&p.Budget)
		case f.seconds != nil:
			s, err := wholeSeconds(*f.seconds(&p.Budget), f.Key)
			if err != nil {
				return nil, err
			}
			out[key] = s
		}
	}
	return out, nil
}

// flatSummary is Summary's two lines of budgets and capability settings.
func (p *Policy) flatSummary(line func(string, ...any)) {
	var budget, settings []string
	for _, f := range flatFields {
		switch {
		case f.setting != nil:
			settings = append(settings, f.label+" "+string(*f.setting(p)))
		case f.count != nil:
			budget = append(budget, fmt.Sprintf(f.label, *f.count(&p.Budget)))
		case f.seconds != nil:
			budget = append(budget, fmt.Sprintf(f.label, *f.seconds(&p.Budget)))
		}
	}
	line("budget: %s", strings.Join(budget, ", "))
	line("%s", strings.Join(settings, ", "))
}
