package records

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A record's retain-until date in Dir: one line, RFC 3339, in the file
// beside the record's (retainSuffix). As compliance mode does, a date is
// only ever moved later.

// readRetention is the date beside the record at path (zero: none).
func readRetention(path string) (time.Time, error) {
	b, err := os.ReadFile(path + retainSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
	if err != nil {
		return time.Time{}, fmt.Errorf("retain-until date %s: %w", path+retainSuffix, err)
	}
	return t, nil
}

// raiseRetention dates the record at path until, unless it is dated that
// late already (or until is zero: no date named). The date is written
// beside its place and renamed into it, so that a crash leaves the old date
// or the new one.
func raiseRetention(path string, until time.Time) error {
	if until.IsZero() {
		return nil
	}
	was, err := readRetention(path)
	if err != nil || !was.Before(until) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // renamed into place when all went well
	_, err = tmp.WriteString(until.UTC().Format(time.RFC3339) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path+retainSuffix)
	}
	return err
}
