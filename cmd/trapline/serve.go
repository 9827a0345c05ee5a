package main

import (
	"errors"
	"io"
)

// cmdServe starts a world for a human or an external agent. Being written.
func cmdServe(args []string, stdout io.Writer) error {
	return withCode(exitUsage, errors.New("trapline serve: not available in this build yet"))
}
