package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// errAmbiguous marks a request that carries one name twice where a backend may read either copy
// (issue 49.5): a key repeated in one JSON object, a name both in the query string and the body, a
// GraphQL parameter given twice. It is refused (RuleAmbiguousRequest), never guessed.
var errAmbiguous = errors.New("ambiguous")

// decodeJSONStrict decodes one JSON document as encoding/json does (numbers as json.Number), and
// refuses a key repeated in one object. json.Unmarshal into a map keeps the last copy of a repeated
// key, while other backends keep the first (or merge, or fail), so such a body means one thing to
// the rules and another to the server. The key set is therefore read from encoding/json's Decoder
// token stream, which reports every key, unescaped ("st\u0061to" is "stato"), rather than from a
// decoded map; no extra library is needed and the grammar stays exactly encoding/json's. Keys are
// compared folded as encoding/json matches struct fields (ASCII case, and Unicode simple folding:
// "STATO", "ſtato" and "stato" name the same Go field), since a Go backend reads either spelling.
// Nesting deeper than maxJSONDepth is an error, checked before the deeper value is read.
func decodeJSONStrict(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	v, err := readJSONValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

func readJSONValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth >= maxJSONDepth {
		return nil, fmt.Errorf("nested more than %d levels", maxJSONDepth)
	}
	if d == '[' {
		var arr []any
		for dec.More() {
			e, err := readJSONValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, e)
		}
		if arr == nil {
			arr = []any{}
		}
		_, err = dec.Token() // ']'
		return arr, err
	}
	return readJSONObject(dec, depth)
}

// readJSONObject reads the members of an object whose '{' was read, refusing a repeated key.
func readJSONObject(dec *json.Decoder, depth int) (map[string]any, error) {
	obj := map[string]any{}
	seen := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("an object key that is not a string")
		}
		folded := foldKey(key)
		if first, dup := seen[folded]; dup {
			return nil, fmt.Errorf("%w: the JSON key %s is given twice in one object (%s)", errAmbiguous, clipQuote(key), sameSpelling(first, key))
		}
		seen[folded] = key
		if obj[key], err = readJSONValue(dec, depth+1); err != nil {
			return nil, err
		}
	}
	_, err := dec.Token() // '}'
	return obj, err
}

func sameSpelling(first, again string) string {
	if first == again {
		return "a backend may read either copy"
	}
	return fmt.Sprintf("first as %s; a backend may read either copy", clipQuote(first))
}

// foldKey folds a name as encoding/json does when it matches a key to a struct field: ASCII
// letters upper-cased, any other rune mapped through unicode.ToUpper(unicode.ToLower(r)), so that
// "K" (Kelvin sign) is "K" and "ſ" (long s) is "S".
func foldKey(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
		i += n
	}
	return string(out)
}

// ambiguousNames refuses a name a backend may read from two places: a query parameter that is
// also a body field (form field, multipart part, top-level JSON key, text/plain line; Rails, PHP's
// $_REQUEST, Express's merged params and many others merge the two, each preferring one side), and
// a JSON part's top-level key that is also a query parameter, another part's name or another JSON
// part's key. Names are compared folded (foldKey). A form field or query parameter repeated in its
// own place stays allowed (checkboxes and multi-selects send them): every copy is judged.
func ambiguousNames(query []field, c content) error {
	where := map[string]string{}
	add := func(name, place string) error {
		k := foldKey(name)
		if prev, ok := where[k]; ok && prev != place {
			return fmt.Errorf("%w: %s is both a %s and a %s; a backend may read either", errAmbiguous, clipQuote(name), prev, place)
		}
		where[k] = place
		return nil
	}
	for _, f := range query {
		if err := add(f.Name, "query parameter"); err != nil {
			return err
		}
	}
	for _, f := range c.fields {
		if err := add(f.Top, "body field"); err != nil {
			return err
		}
	}
	for _, k := range c.partKeys {
		if prev, ok := where[foldKey(k)]; ok {
			return fmt.Errorf("%w: %s is both a key of a JSON part and a %s; a backend may read either", errAmbiguous, clipQuote(k), prev)
		}
		where[foldKey(k)] = "key of a JSON part"
	}
	return nil
}

// maxQuoted bounds a name or header text quoted in a reason: a request or response chooses its
// length, and a reason goes to the decision log.
const maxQuoted = 80

// clipQuote quotes s, cut to maxQuoted bytes (at a rune boundary) with "..." when longer.
func clipQuote(s string) string {
	if len(s) <= maxQuoted {
		return fmt.Sprintf("%q", s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q...", s[:cut])
}
