package evidence

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// ReadLines reads r as JSON Lines of records of version want, each decoded into a T, as trapline's
// readers of versioned logs do. A line may be up to maxLine bytes (64 KiB at least). Errors start
// with where (the reader and the file or stream it reads): a bad line's as "where:LINE: ...",
// wrapping ErrVersion for a record of another version; a read error's as "where: ...".
func ReadLines[T any](r io.Reader, where string, want, maxLine int) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for line := 1; sc.Scan(); line++ {
		if err := CheckVersion(sc.Bytes(), want); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", where, line, err)
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", where, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return out, nil
}
