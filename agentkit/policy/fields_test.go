package policy

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
)

// everyField is testdata/every_field.yml, which sets every field of the policy file to a value that
// is not its default.
func everyField(t *testing.T) *Policy {
	t.Helper()
	p, err := Load("testdata/every_field.yml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// leafKeys are the keys of the fields that hold a value (not a struct to descend into).
func leafKeys(t *testing.T) []string {
	var out []string
	walkFields(reflect.TypeFor[Policy](), "", func(key string, f reflect.StructField) {
		switch {
		case key == "":
			t.Errorf("field %s has no `policy` tag: name its key in the policy file, or \"-\" when no file sets it", f.Name)
		case structBelow(f.Type) == nil && !slices.Contains(out, key):
			out = append(out, key)
		}
	})
	return out
}

// TestEveryPolicyField walks the `policy` tags of the Policy type and fails on any field that the
// decoder, Marshal, Clone or Summary misses (the mutant generator's half is in internal/mutate):
// testdata/every_field.yml sets each field, so a field left at its default after Parse is one the
// decoder does not read, a field that differs after Marshal and Parse is one Marshal drops, and so on.
func TestEveryPolicyField(t *testing.T) {
	p := everyField(t)
	values := leafValues(reflect.ValueOf(p).Elem(), "")
	defaults := leafValues(reflect.ValueOf(defaultPolicy("default")).Elem(), "")
	marshalled, _ := marshalParse(t, "every_field (marshalled)", p)
	again := leafValues(reflect.ValueOf(marshalled).Elem(), "")
	for _, key := range leafKeys(t) {
		if len(values[key]) == 0 || reflect.DeepEqual(values[key], defaults[key]) && key != "version" { // 1 is the only version
			t.Errorf("%s: its default after Parse of testdata/every_field.yml: the decoder misses it (or the file does not set it)", key)
			continue
		}
		if !reflect.DeepEqual(values[key], again[key]) {
			t.Errorf("%s: Marshal misses it: %v before, %v after Marshal and Parse", key, values[key], again[key])
		}
		c := p.Clone()
		if !change(reflect.ValueOf(c).Elem(), "", key) {
			t.Errorf("%s: the test cannot change it: teach change its type", key)
		} else if c.Summary() == p.Summary() {
			t.Errorf("%s: Summary misses it: changing it does not change the summary", key)
		}
	}
	shared(t, reflect.ValueOf(p).Elem(), reflect.ValueOf(p.Clone()).Elem(), "")
}

// children calls fn on each tagged field of struct v with its key, and on each element of the
// lists of structs and pointed-to structs below them.
func children(v reflect.Value, prefix string, fn func(key string, f reflect.Value)) {
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		tag := sf.Tag.Get("policy")
		if !sf.IsExported() || tag == "-" || tag == "" {
			continue
		}
		key := tag
		if prefix != "" {
			key = prefix + "." + tag
		}
		fn(key, v.Field(i))
	}
}

// leafValues renders every non-zero leaf below v by key; patterns by their source.
func leafValues(v reflect.Value, prefix string) map[string][]string {
	out := map[string][]string{}
	var walk func(key string, v reflect.Value)
	walk = func(key string, v reflect.Value) {
		if structBelow(v.Type()) == nil {
			if !v.IsZero() {
				out[key] = append(out[key], render(v))
			}
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(key, v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(key, v.Index(i))
			}
		case reflect.Struct:
			children(v, key, walk)
		}
	}
	children(v, prefix, walk)
	return out
}

func render(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case *Pattern:
		return x.Source
	case []*Pattern:
		return fmt.Sprint(sourcesOf(x))
	case map[string][]string:
		return fmt.Sprint(slices.Sorted(maps.Keys(x)), x)
	}
	return fmt.Sprint(v.Interface())
}

func sourcesOf(ps []*Pattern) []string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Source
	}
	return s
}

// change changes the first leaf with key below struct v, and reports whether it found one.
func change(v reflect.Value, prefix, key string) bool {
	done := false
	var walk func(k string, f reflect.Value)
	walk = func(k string, f reflect.Value) {
		switch {
		case done:
		case k == key && structBelow(f.Type()) == nil:
			done = changeLeaf(f)
		case f.Kind() == reflect.Pointer && !f.IsNil() && structBelow(f.Type()) != nil:
			walk(k, f.Elem())
		case f.Kind() == reflect.Slice && f.Len() > 0 && structBelow(f.Type()) != nil:
			walk(k, f.Index(0))
		case f.Kind() == reflect.Struct && structBelow(f.Type()) != nil:
			children(f, k, walk)
		}
	}
	children(v, prefix, walk)
	return done
}

// changeLeaf gives a leaf another value: a string becomes "allow" (or "allowx"), a number grows by
// one, a pattern or a list's first item gets a suffix, a map's first list an item.
func changeLeaf(f reflect.Value) bool {
	switch x := f.Interface().(type) {
	case *Pattern:
		f.Set(reflect.ValueOf(MustPattern(x.Source + "x")))
		return true
	case []*Pattern:
		x[0] = MustPattern(x[0].Source + "x")
		return true
	case []string:
		x[0] += "x"
		return true
	case map[string][]string:
		k := slices.Sorted(maps.Keys(x))[0]
		x[k] = append(slices.Clone(x[k]), "zz")
		return true
	}
	switch f.Kind() {
	case reflect.String:
		if f.String() == "allow" {
			f.SetString("allowx")
		} else {
			f.SetString("allow")
		}
		return true
	case reflect.Int, reflect.Int64:
		f.SetInt(f.Int() + 1)
		return true
	}
	return false
}

// shared fails on any list, map or pointer (patterns aside) that a clone shares with its original.
func shared(t *testing.T, a, b reflect.Value, key string) {
	t.Helper()
	switch a.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer:
		if a.IsNil() || a.Type() == reflect.TypeFor[*Pattern]() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: Clone misses it: the clone shares it with the original", key)
		}
	}
	switch a.Kind() {
	case reflect.Pointer:
		shared(t, a.Elem(), b.Elem(), key)
	case reflect.Slice:
		for i := range a.Len() {
			shared(t, a.Index(i), b.Index(i), key)
		}
	case reflect.Map:
		for it := a.MapRange(); it.Next(); {
			shared(t, it.Value(), b.MapIndex(it.Key()), key)
		}
	case reflect.Struct:
		for j := range a.NumField() {
			if sf := a.Type().Field(j); sf.IsExported() {
				shared(t, a.Field(j), b.Field(j), key+"."+sf.Name)
			}
		}
	}
}
