package evidence

import (
	"bufio"
	"bytes"
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

// ErrLineTooLong is wrapped by the error of ReadLines for a line over its maxLine.
var ErrLineTooLong = errors.New("line too long")

// ReadLines reads r as JSON Lines of records of version want, each decoded into a T, as trapline's
// readers of versioned logs do. A line may be up to maxLine bytes (64 KiB at least; trapline's
// writers bound theirs to jsonl.MaxLine). Errors start with where (the reader and the file or stream
// it reads): a bad line's as "where:LINE: ...", wrapping ErrVersion for a record of another version;
// a read error's as "where: ...". A line over maxLine does not lose the rest of the file: ReadLines
// skips it, reads on, and returns every other record with an error naming the first such line
// ("where:LINE: ...", wrapping ErrLineTooLong) and how many there were.
func ReadLines[T any](r io.Reader, where string, want, maxLine int) ([]T, error) {
	var out []T
	var long []int // the over-long lines
	br := bufio.NewReaderSize(r, 64<<10)
	maxLine = max(maxLine, 64<<10)
	for line := 1; ; line++ {
		b, tooLong, err := readLine(br, maxLine)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		switch {
		case tooLong:
			long = append(long, line)
		case len(b) > 0 || err == nil:
			v, lerr := decodeLine[T](b, want)
			if lerr != nil {
				return nil, fmt.Errorf("%s:%d: %w", where, line, lerr)
			}
			out = append(out, v)
		}
		if err == io.EOF {
			break
		}
	}
	if len(long) > 0 {
		return out, fmt.Errorf("%s:%d: %w: over %d bytes (%d such lines, skipped; the other %d records were read)",
			where, long[0], ErrLineTooLong, maxLine, len(long), len(out))
	}
	return out, nil
}

func decodeLine[T any](b []byte, want int) (T, error) {
	var v T
	if err := CheckVersion(b, want); err != nil {
		return v, err
	}
	err := json.Unmarshal(b, &v)
	return v, err
}

// readLine reads one line without its newline (and a carriage return before it, as bufio.ScanLines
// drops). A line over maxLine is read to its end and dropped: tooLong. err is io.EOF after the last
// line, with that line when the file does not end in a newline.
func readLine(br *bufio.Reader, maxLine int) (line []byte, tooLong bool, err error) {
	for {
		chunk, rerr := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if rerr == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if !tooLong && len(line) > maxLine {
			tooLong, line = true, nil
		}
		return line, tooLong, rerr
	}
}
