package webhooks

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadCapped(t *testing.T) {
	tests := []struct {
		name          string
		in            string
		n             int
		want          string
		wantTruncated bool
	}{
		{"empty", "", 10, "", false},
		{"shorter", "hello", 10, "hello", false},
		{"exactly n", "hello", 5, "hello", false},
		{"one over", "hello!", 5, "hello", true},
		{"much longer", strings.Repeat("x", 10_000), MaxResponseBody, strings.Repeat("x", MaxResponseBody), true},
		{"zero", "hello", 0, "", true},
		{"negative is zero", "hello", -1, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, truncated, err := ReadCapped(strings.NewReader(tt.in), tt.n)
			if err != nil || string(body) != tt.want || truncated != tt.wantTruncated {
				t.Errorf("ReadCapped = %q, %v, %v; want %q, %v", body, truncated, err, tt.want, tt.wantTruncated)
			}
		})
	}
	t.Run("reads no more than n+1 bytes", func(t *testing.T) {
		r := &countingReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
		if _, _, err := ReadCapped(r, 100); err != nil {
			t.Fatal(err)
		}
		if r.n > 101 {
			t.Errorf("read %d bytes", r.n)
		}
	})
	t.Run("a read error is reported with what was read", func(t *testing.T) {
		r := io.MultiReader(strings.NewReader("part"), iotest.ErrReader(errors.New("reset")))
		body, _, err := ReadCapped(r, 100)
		if err == nil || string(body) != "part" {
			t.Errorf("ReadCapped = %q, %v", body, err)
		}
	})
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
