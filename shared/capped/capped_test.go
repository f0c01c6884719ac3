package capped

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		n        int
		want     string
		wantMore bool
	}{
		{"empty", "", 10, "", false},
		{"shorter than the cap", "hello", 10, "hello", false},
		{"exactly the cap is whole", "hello", 5, "hello", false},
		{"one byte over the cap is more", "hello!", 5, "hello", true},
		{"much longer is cut at the cap", strings.Repeat("x", 10_000), 4096, strings.Repeat("x", 4096), true},
		{"a cap of zero", "hello", 0, "", true},
		{"a negative cap is zero", "hello", -1, "", true},
		{"a cap of zero on nothing", "", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, more, err := Read(strings.NewReader(tt.in), tt.n)
			if err != nil || string(body) != tt.want || more != tt.wantMore {
				t.Errorf("Read = %q, %v, %v; want %q, %v", body, more, err, tt.want, tt.wantMore)
			}
		})
	}
}

func TestReadReadsNoMoreThanOneBytePastTheCap(t *testing.T) {
	r := &countingReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
	if _, _, err := Read(r, 100); err != nil {
		t.Fatal(err)
	}
	if r.n > 101 {
		t.Errorf("read %d bytes", r.n)
	}
}

func TestReadReportsAnErrorWithWhatWasRead(t *testing.T) {
	reset := errors.New("reset")
	r := io.MultiReader(strings.NewReader("part"), iotest.ErrReader(reset))
	body, _, err := Read(r, 100)
	if !errors.Is(err, reset) || string(body) != "part" {
		t.Errorf("Read = %q, %v", body, err)
	}
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
