package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrVersion is wrapped by the error of a reader given a record of a version it does not read.
var ErrVersion = errors.New("unsupported record version")

// CheckVersion checks that the JSON object line carries "v": want. A record without "v", or with
// another version, is an error wrapping ErrVersion that names both: a reader never guesses at the
// fields of a version it does not know. Every versioned JSONL reader of trapline uses it.
func CheckVersion(line []byte, want int) error {
	var head struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return err
	}
	switch {
	case head.V == nil:
		return fmt.Errorf("%w: the record has no \"v\" (this trapline reads v=%d)", ErrVersion, want)
	case *head.V != want:
		return fmt.Errorf("%w: the record is v=%d, this trapline reads v=%d", ErrVersion, *head.V, want)
	}
	return nil
}
