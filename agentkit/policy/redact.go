package policy

import (
	"regexp"
	"strings"
)

// Redacted replaces the user information of a URL or host in messages.
const Redacted = "REDACTED"

// userinfoInURL is the user information of a URL written in a message: after a scheme and any
// slashes or backslashes (browsers read "http:\\u:p@h" and "http:u:p@h" as a host with user info),
// everything up to the last "@" before the path, query, fragment or the end of the quoted text.
var userinfoInURL = regexp.MustCompile(`(?i)([a-z][a-z0-9+.\-]*:[/\\]*)[^\s"'<>/\\?#]*@`)

// RedactUserinfo returns s with the user information of every URL in it ("http://user:pw@host"
// becomes "http://REDACTED@host"), so a password written into a URL never reaches a log, a
// decision or an error message. Text without a URL is returned unchanged.
func RedactUserinfo(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return userinfoInURL.ReplaceAllString(s, "${1}"+Redacted+"@")
}

// redactHost is RedactUserinfo for a host as written, which may also be "user:pw@host" without a
// scheme: everything up to its last "@" goes.
func redactHost(h string) string {
	if i := strings.LastIndexByte(h, '@'); i >= 0 && !strings.Contains(h, "://") {
		return Redacted + h[i:]
	}
	return RedactUserinfo(h)
}
