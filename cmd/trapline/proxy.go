package main

import (
	"errors"
	"io"
)

// cmdProxy runs the egress proxy as its own process. Being written; see issue 5.
func cmdProxy(args []string, stdout io.Writer) error {
	return withCode(exitUsage, errors.New("trapline proxy: not available in this build yet"))
}
