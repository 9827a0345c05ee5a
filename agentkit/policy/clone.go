package policy

import "reflect"

// Clone returns a deep copy of p: a caller may change the copy's lists and maps (a task-specific
// allowance, a mutated rule) without touching p. Patterns and the compiled deny words are
// immutable and shared; an edit to the copy's DenyWords takes effect on the copy alone. The copy
// is made by walking the exported fields, so a new field is deep-copied without a line here.
func (p *Policy) Clone() *Policy {
	c := *p
	deepCopy(reflect.ValueOf(&c).Elem())
	if c.Actions.DenyWords == nil {
		c.Actions.DenyWords = map[string][]string{} // a hook may add a category to any clone
	}
	return &c
}

// deepCopy replaces every slice, map and pointer that v (settable) shares with the value it was
// copied from by a copy of its own, descending into them. Patterns are immutable and stay shared,
// and so do unexported fields (the compiled forms, which check that they are current).
func deepCopy(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				deepCopy(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			deepCopy(c.Index(i))
		}
		v.Set(c)
	case reflect.Map:
		if v.IsNil() {
			return
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			deepCopy(e)
			c.SetMapIndex(it.Key(), e)
		}
		v.Set(c)
	case reflect.Pointer:
		if v.IsNil() || v.Type().Elem() == patternType {
			return
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(v.Elem())
		deepCopy(c.Elem())
		v.Set(c)
	}
}
