// Package logging gives every function the same structured JSON logs, with
// the request id carried in the context so that every line of a request can
// be found together.
package logging

import (
	"context"
	"io"
	"log/slog"
	"os"
)

// New returns a JSON logger writing to w (os.Stderr when nil), at the level
// named by LOG_LEVEL-style text (debug, info, warn, error; info by default).
func New(w io.Writer, level string) *slog.Logger {
	return slog.New(slog.NewJSONHandler(orStderr(w), options(level)))
}

// NewText is New for a person at a terminal: the same records as slog's
// text lines (time=… level=WARN msg=… key=value) rather than JSON.
func NewText(w io.Writer, level string) *slog.Logger {
	return slog.New(slog.NewTextHandler(orStderr(w), options(level)))
}

func orStderr(w io.Writer) io.Writer {
	if w == nil {
		return os.Stderr
	}
	return w
}

func options(level string) *slog.HandlerOptions {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return &slog.HandlerOptions{Level: l}
}

type ctxKey struct{}

// WithLogger returns a context carrying l.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// Lookup returns the logger the context carries, if it carries one.
func Lookup(ctx context.Context) (*slog.Logger, bool) {
	l, ok := ctx.Value(ctxKey{}).(*slog.Logger)
	return l, ok
}

// From returns the context's logger, or slog's default.
func From(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(ctxKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}
