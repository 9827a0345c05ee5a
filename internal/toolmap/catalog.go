package toolmap

import (
	"encoding/json"
	"slices"
)

// EnableCall finds, among tools, a tool catalog that hides the server's other tools until the model
// enables them, and the call that enables every group it names: @tontoko/fast-playwright-mcp's
// default "adaptive" profile lists navigate, snapshot and browser_tools, whose
// {"action":"enable","groups":[...]} makes the server list its click, type and select tools
// (notifications/tools/list_changed). A model can make that call itself, so the catalog is no fence:
// the worst-case model enables everything. ok is false when no tool is such a catalog.
func EnableCall(tools []Tool) (Call, bool) {
	for _, t := range tools {
		var root prop
		if len(t.InputSchema) == 0 || json.Unmarshal(t.InputSchema, &root) != nil {
			continue
		}
		shapes := append(append([]prop{root}, root.AnyOf...), root.OneOf...)
		for _, sh := range shapes {
			action, ok := sh.Properties["action"]
			if !ok || !(action.Const == "enable" || slices.Contains(action.Enum, any("enable"))) {
				continue
			}
			groups, ok := sh.Properties["groups"]
			if !ok || !groups.is("array") || groups.Items == nil || len(groups.Items.Enum) == 0 {
				continue
			}
			return Call{Tool: t.Name, Args: map[string]any{"action": "enable", "groups": slices.Clone(groups.Items.Enum)}}, true
		}
	}
	return Call{}, false
}
