package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/url"
	"slices"
	"strings"
)

// errUnknownType marks a body whose content type the rules cannot read.
var errUnknownType = errors.New("unknown content type")

// maxJSONDepth bounds JSON nesting; a deeper body is unreadable rather than walked.
const maxJSONDepth = 32

// parseBody reads the fields of a request body by its content type. An empty body has none. It
// reads application/x-www-form-urlencoded, multipart/form-data, application/json (and */*+json),
// application/graphql and text/plain (Chromium's enctype=text/plain forms and string beacons: the
// lines "name=value", and the whole text as a value); any other type, or no type with a body, is
// errUnknownType. A body that does not parse as its type is an error naming why.
func parseBody(contentType string, body []byte) (content, error) {
	var c content
	if len(body) == 0 {
		return c, nil
	}
	if contentType == "" {
		return c, fmt.Errorf("%w: a %d-byte body with no Content-Type", errUnknownType, len(body))
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return c, fmt.Errorf("Content-Type %q: %w", contentType, err)
	}
	switch {
	case mt == "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return c, fmt.Errorf("form body: %w", err)
		}
		c.fields = valuesFields(vals, false)
	case mt == "multipart/form-data":
		if params["boundary"] == "" {
			return c, fmt.Errorf("multipart body without a boundary")
		}
		if c.fields, err = multipartFields(body, params["boundary"]); err != nil {
			return c, fmt.Errorf("multipart body: %w", err)
		}
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		if err := jsonContent(body, &c); err != nil {
			return c, fmt.Errorf("JSON body: %w", err)
		}
	case mt == "application/graphql":
		c.gql = []gqlRequest{{document: string(body), hasDoc: true}}
		c.raw = append(c.raw, string(body))
	case mt == "text/plain":
		text := string(body)
		c.raw = append(c.raw, text)
		for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok && k != "" {
				c.fields = append(c.fields, field{Name: k, Path: k, Top: k, Value: v, Scalar: true})
			}
		}
	default:
		return c, fmt.Errorf("%w: %q", errUnknownType, mt)
	}
	return c, nil
}

// valuesFields turns url.Values into fields in name order (deterministic reasons).
func valuesFields(vals url.Values, query bool) []field {
	names := slices.Sorted(maps.Keys(vals))
	var out []field
	for _, k := range names {
		for _, v := range vals[k] {
			out = append(out, field{Name: k, Path: k, Top: k, Value: v, Scalar: true, Query: query})
		}
	}
	return out
}

func multipartFields(body []byte, boundary string) ([]field, error) {
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	var out []field
	for {
		part, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		name := part.FormName()
		if name == "" {
			return nil, fmt.Errorf("a part without a form name")
		}
		if fn := part.FileName(); fn != "" {
			// A file's content is not a field value; its name is.
			out = append(out, field{Name: name, Path: name, Top: name, Value: fn, Scalar: true})
			continue
		}
		v, err := io.ReadAll(part)
		if err != nil {
			return nil, err
		}
		out = append(out, field{Name: name, Path: name, Top: name, Value: string(v), Scalar: true})
	}
}

// jsonContent flattens a JSON body into fields (every leaf, with its dotted path) and reads its
// GraphQL requests (an object, or each object of a batched array).
func jsonContent(body []byte, c *content) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("data after the JSON value")
	}
	c.gql = graphQLOfJSON(v)
	for _, g := range c.gql {
		if g.hasDoc {
			c.raw = append(c.raw, g.document)
		}
	}
	return flattenJSON(v, "", "", 0, &c.fields)
}

func flattenJSON(v any, path, top string, depth int, out *[]field) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("nested more than %d levels", maxJSONDepth)
	}
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		for _, k := range keys {
			p, t := k, top
			if path != "" {
				p = path + "." + k
			}
			if t == "" {
				t = k
				if _, obj := x[k].(map[string]any); obj || isArray(x[k]) {
					*out = append(*out, field{Name: k, Path: k, Top: k}) // the key itself, no scalar value
				}
			}
			if err := flattenJSON(x[k], p, t, depth+1, out); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := flattenJSON(e, fmt.Sprintf("%s[%d]", path, i), top, depth+1, out); err != nil {
				return err
			}
		}
	default:
		name := path
		if i := strings.LastIndexAny(name, "."); i >= 0 {
			name = name[i+1:]
		}
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		s := ""
		switch y := x.(type) {
		case string:
			s = y
		case json.Number:
			s = y.String()
		case bool:
			s = fmt.Sprint(y)
		case nil:
			s = ""
		}
		if top == "" {
			top = name
		}
		*out = append(*out, field{Name: name, Path: path, Top: top, Value: s, Scalar: true})
	}
	return nil
}

func isArray(v any) bool {
	_, ok := v.([]any)
	return ok
}
