package evidence

import "reflect"

// Value redacts, in place, every string reachable from v, a pointer: exported struct fields, slice and array elements, map values and what pointers and interfaces hold. It is how a
// record that leaves the evidence folder (a run's result, with effect details that quote request
// bodies) gets the same redaction the folder's files get (Seal): a field added later is covered
// without a line here. Map keys are left as they are (no record of the module keys a map by text
// that a page or an agent writes).
func (r *Redactor) Value(v any) {
	if !r.active() {
		return
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return
	}
	r.walk(rv.Elem(), 0)
}

// maxWalkDepth bounds the walk, so a cyclic structure ends it instead of the process.
const maxWalkDepth = 64

func (r *Redactor) walk(v reflect.Value, depth int) {
	if depth > maxWalkDepth {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			if s := v.String(); s != "" {
				if red := r.String(s); red != s {
					v.SetString(red)
				}
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			r.walkElem(v, depth)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				r.walk(v.Field(i), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			r.walk(v.Index(i), depth+1)
		}
	case reflect.Map:
		r.walkMap(v, depth)
	}
}

// walkElem walks what a pointer points to, or a copy of what an interface holds (an interface's
// value cannot be set in place), stored back when it changed.
func (r *Redactor) walkElem(v reflect.Value, depth int) {
	if v.Kind() == reflect.Pointer {
		r.walk(v.Elem(), depth+1)
		return
	}
	held := v.Elem()
	cp := reflect.New(held.Type()).Elem()
	cp.Set(held)
	r.walk(cp, depth+1)
	if v.CanSet() {
		v.Set(cp)
	}
}

// walkMap redacts a map's values (copied out, redacted, stored back).
func (r *Redactor) walkMap(v reflect.Value, depth int) {
	if v.IsNil() {
		return
	}
	iter := v.MapRange()
	for iter.Next() {
		cp := reflect.New(iter.Value().Type()).Elem()
		cp.Set(iter.Value())
		r.walk(cp, depth+1)
		v.SetMapIndex(iter.Key(), cp)
	}
}
