package llm

import "github.com/trapline/trapline/agentkit/action"

// ActionSchema returns the JSON schema of one action as sent in response_format: a flat object whose
// fields are all present (strict mode wants every property required) and null where they do not apply.
// The answer is still decoded by action.Parse, strictly: an unknown field or action is rejected.
func ActionSchema() map[string]any {
	kinds := make([]any, 0, len(action.Kinds()))
	for _, k := range action.Kinds() {
		kinds = append(kinds, string(k))
	}
	nullable := func(desc string) map[string]any {
		return map[string]any{"type": []string{"string", "null"}, "description": desc}
	}
	dir := nullable("scroll: up or down")
	dir["enum"] = []any{"up", "down", nil}
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"action", "ref", "url", "value", "key", "dir", "within", "reason"},
		"properties": map[string]any{
			"action": map[string]any{"type": "string", "enum": kinds},
			"ref":    nullable("the element's ref exactly as in the observation (snapshot:eN); click, fill, select, press, hover, read"),
			"url":    nullable("absolute URL; goto only"),
			"value":  nullable("text to type (fill) or option to choose (select)"),
			"key":    nullable("key to press, e.g. Enter; press only"),
			"dir":    dir,
			"within": nullable("the name of the target's row or section (\"Pratica 8\"), when its role and name alone name several elements: one \"Salva\" per row"),
			"reason": nullable("one short sentence: why this action"),
		},
	}
}

// responseFormat is the response_format field for cfg, or nil.
func responseFormat(format string) any {
	switch format {
	case FormatJSONSchema:
		return map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": "browser_action", "strict": true, "schema": ActionSchema()}}
	case FormatJSONObject:
		return map[string]any{"type": "json_object"}
	}
	return nil
}
