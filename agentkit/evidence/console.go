package evidence

// ReadConsole reads a console.jsonl file: the page's console messages and the session's records of
// the dialogs it accepted (type "dialog", agentkit/browser's ConsoleDialog).
func ReadConsole(path string) ([]ConsoleRecord, error) {
	return readJSONL[ConsoleRecord](path)
}
