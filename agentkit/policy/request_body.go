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
	if err := checkCharset(params); err != nil {
		return c, err
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
		if err = multipartContent(body, params["boundary"], &c); err != nil {
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

// multipartContent reads a multipart/form-data body: each part is a field by its form name (a file
// part's value is its file name, not its content). A part whose Content-Type is JSON is also read
// as JSON (strictly: a repeated key is ambiguous) and its leaves become fields under the part's
// name, since frameworks that bind JSON parts (Spring's @RequestPart, NestJS, FastAPI) read them
// as the request's parameters; its top-level keys are kept in c.partKeys for the ambiguity check.
func multipartContent(body []byte, boundary string, c *content) error {
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		part, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := part.FormName()
		if name == "" {
			return fmt.Errorf("a part without a form name")
		}
		if fn := part.FileName(); fn != "" {
			// A file's content is not a field value; its name is.
			c.fields = append(c.fields, field{Name: name, Path: name, Top: name, Value: fn, Scalar: true})
			continue
		}
		v, err := io.ReadAll(part)
		if err != nil {
			return err
		}
		c.fields = append(c.fields, field{Name: name, Path: name, Top: name, Value: string(v), Scalar: true})
		if err := jsonPart(name, part.Header.Get("Content-Type"), v, c); err != nil {
			return fmt.Errorf("part %s: %w", clipQuote(name), err)
		}
	}
}

// jsonPart reads a multipart part declared as JSON: its leaves as fields under the part's name,
// its top-level keys into c.partKeys. A part of any other type is left as its text.
func jsonPart(name, contentType string, v []byte, c *content) error {
	if contentType == "" {
		return nil
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return fmt.Errorf("Content-Type %q: %w", contentType, err)
	}
	if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return nil
	}
	if err := checkCharset(params); err != nil {
		return err
	}
	tree, err := decodeJSONStrict(v)
	if err != nil {
		return fmt.Errorf("JSON part: %w", err)
	}
	if obj, ok := tree.(map[string]any); ok {
		c.partKeys = append(c.partKeys, slices.Sorted(maps.Keys(obj))...)
	}
	return flattenJSON(tree, name, name, 1, &c.fields)
}

// checkCharset refuses a body that declares a charset other than UTF-8 or US-ASCII: the rules
// read the bytes as UTF-8, a backend that honours the declared charset (UTF-7, UTF-16, a legacy
// code page) reads other text, keys included ("+ACI-" is a quote in UTF-7).
func checkCharset(params map[string]string) error {
	cs, ok := params["charset"]
	if !ok {
		return nil
	}
	switch strings.ToLower(strings.TrimSpace(cs)) {
	case "utf-8", "utf8", "us-ascii":
		return nil
	}
	return fmt.Errorf("%w: the body declares charset %s; the rules read UTF-8 and a backend may decode it otherwise", errAmbiguous, clipQuote(cs))
}

// jsonContent flattens a JSON body into fields (every leaf, with its dotted path) and reads its
// GraphQL requests (an object, or each object of a batched array).
func jsonContent(body []byte, c *content) error {
	v, err := decodeJSONStrict(body)
	if err != nil {
		return err
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
