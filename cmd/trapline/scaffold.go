package main

import (
	"errors"
	"io"
)

// cmdTrapsNew scaffolds a trap file and its catalog line. Being written.
func cmdTrapsNew(args []string, stdout io.Writer) error {
	return withCode(exitUsage, errors.New("trapline traps new: not available in this build yet"))
}
