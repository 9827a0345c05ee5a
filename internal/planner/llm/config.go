package llm

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvBaseURL        = "TRAPLINE_LLM_BASE_URL"
	EnvModel          = "TRAPLINE_LLM_MODEL"
	EnvAPIKey         = "TRAPLINE_LLM_API_KEY"
	EnvResponseFormat = "TRAPLINE_LLM_RESPONSE_FORMAT"
)

// Response formats: how the request asks the server to keep the answer to one action.
const (
	// FormatJSONSchema sends response_format {"type":"json_schema"} with the action's schema (strict):
	// OpenAI, vLLM, llama.cpp's server and Ollama >= 0.5 constrain decoding to it. The default.
	FormatJSONSchema = "json_schema"
	// FormatJSONObject sends response_format {"type":"json_object"}: any JSON object; the schema is
	// only in the prompt. For servers without json_schema support.
	FormatJSONObject = "json_object"
	// FormatNone sends no response_format; the answer is still parsed strictly.
	FormatNone = "none"
)

// Key is an API key. It prints, and encodes to JSON, as "[redacted]", so a Config can be logged.
type Key string

// String hides the key.
func (Key) String() string { return "[redacted]" }

// GoString hides the key from %#v.
func (Key) GoString() string { return `"[redacted]"` }

// MarshalText hides the key from encoders.
func (Key) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }

// Config configures a Planner. Build it by hand, from flags, or with ConfigFromEnv; New validates it.
type Config struct {
	// BaseURL is the API root that /chat/completions is appended to, e.g. https://api.openai.com/v1,
	// http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8000/v1 (vLLM), http://127.0.0.1:8080/v1
	// (llama.cpp server). Plain http is allowed only to a loopback address unless AllowPlainHTTP is set,
	// since the key would travel in clear.
	BaseURL string
	// Model is the model name the server expects.
	Model string
	// APIKey is sent as "Authorization: Bearer"; empty sends no header (local servers).
	APIKey Key
	// ResponseFormat is FormatJSONSchema (default), FormatJSONObject or FormatNone.
	ResponseFormat string
	// MaxOutputTokens caps each answer (max_tokens); default 400. An action is a few dozen tokens.
	MaxOutputTokens int
	// Temperature is sent as is; default 0.
	Temperature float64
	// MaxRejections is how many unusable answers in a row the planner accepts before ErrGaveUp;
	// default 3.
	MaxRejections int
	// MaxElements caps the element lines of an observation sent to the model (observe.Compact); 0
	// means no cap. A cut is marked in the text.
	MaxElements int
	// MaxTextRunes shortens long inline texts of the observation; default 300, negative for no limit.
	MaxTextRunes int
	// DialRetries is how many times a request whose connection could not be opened is sent again;
	// default 2. Nothing else is ever retried.
	DialRetries int
	// RetryBackoff is the wait before the first dial retry, doubled after each; default 200ms.
	RetryBackoff time.Duration
	// AllowPlainHTTP permits an http:// BaseURL to a host that is not loopback.
	AllowPlainHTTP bool
	// HTTPClient is the client used; nil means a client with its own transport. Its timeout, if any,
	// adds to the per-decision deadline the caller's context carries.
	HTTPClient *http.Client
}

// ConfigError says which field of a Config is wrong and why.
type ConfigError struct {
	Field  string // the Config field, with its environment variable when there is one
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("llm planner: config %s: %s", e.Field, e.Reason)
}

// ConfigFromEnv reads BaseURL, Model, APIKey and ResponseFormat from TRAPLINE_LLM_BASE_URL,
// TRAPLINE_LLM_MODEL, TRAPLINE_LLM_API_KEY and TRAPLINE_LLM_RESPONSE_FORMAT through getenv: the
// caller passes os.Getenv (the package reads no environment itself) or a map's lookup in a test. The
// rest keeps its defaults; New validates the result.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{
		BaseURL:        strings.TrimSpace(getenv(EnvBaseURL)),
		Model:          strings.TrimSpace(getenv(EnvModel)),
		APIKey:         Key(strings.TrimSpace(getenv(EnvAPIKey))),
		ResponseFormat: strings.TrimSpace(getenv(EnvResponseFormat)),
	}
}

// withDefaults fills zero fields and validates the rest.
func (c Config) withDefaults() (Config, *url.URL, error) {
	bad := func(field, format string, args ...any) (Config, *url.URL, error) {
		return Config{}, nil, &ConfigError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if c.BaseURL == "" {
		return bad("BaseURL ("+EnvBaseURL+")", "missing; e.g. http://127.0.0.1:11434/v1 for Ollama")
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return bad("BaseURL ("+EnvBaseURL+")", "%q is not an absolute http(s) URL", c.BaseURL)
	}
	if u.User != nil {
		return bad("BaseURL ("+EnvBaseURL+")", "must not carry credentials; put the key in %s", EnvAPIKey)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return bad("BaseURL ("+EnvBaseURL+")", "must not have a query or fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !c.AllowPlainHTTP && !loopback(u.Hostname()) {
			return bad("BaseURL ("+EnvBaseURL+")", "plain http to %s would send the key and the page text in clear; use https or a loopback address", u.Hostname())
		}
	default:
		return bad("BaseURL ("+EnvBaseURL+")", "scheme %q is not http or https", u.Scheme)
	}
	if c.Model == "" {
		return bad("Model ("+EnvModel+")", "missing")
	}
	if strings.ContainsAny(string(c.APIKey), " \t\r\n") {
		return bad("APIKey ("+EnvAPIKey+")", "contains white space or a line break")
	}
	switch c.ResponseFormat {
	case "":
		c.ResponseFormat = FormatJSONSchema
	case FormatJSONSchema, FormatJSONObject, FormatNone:
	default:
		return bad("ResponseFormat ("+EnvResponseFormat+")", "%q is not one of %s, %s, %s", c.ResponseFormat, FormatJSONSchema, FormatJSONObject, FormatNone)
	}
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{{"MaxOutputTokens", &c.MaxOutputTokens, 400}, {"MaxRejections", &c.MaxRejections, 3}, {"DialRetries", &c.DialRetries, 2}} {
		switch {
		case *f.v < 0:
			return bad(f.name, "negative (%d)", *f.v)
		case *f.v == 0:
			*f.v = f.def
		}
	}
	if c.MaxElements < 0 {
		return bad("MaxElements", "negative (%d)", c.MaxElements)
	}
	switch {
	case c.MaxTextRunes == 0:
		c.MaxTextRunes = 300
	case c.MaxTextRunes < 0:
		c.MaxTextRunes = 0
	}
	if c.Temperature < 0 || c.Temperature > 2 {
		return bad("Temperature", "%g is outside 0..2", c.Temperature)
	}
	if c.RetryBackoff < 0 {
		return bad("RetryBackoff", "negative (%s)", c.RetryBackoff)
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = 200 * time.Millisecond
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/chat/completions"
	return c, u, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
