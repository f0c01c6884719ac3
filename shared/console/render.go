package console

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// pageNames are the templates/<name>.html files.
func pageNames() []string {
	return []string{"signin", "enrol", "enrol_passkey", "passkeys", "queue", "review", "answer", "confirm", "execution", "approval", "stale"}
}

// scripts names the pages that run a passkey ceremony: only they load the
// script.
func scripts() map[string]string {
	out := map[string]string{}
	for _, page := range []string{"signin", "enrol_passkey", "passkeys", "confirm", "approval"} {
		out[page] = "passkey.js"
	}
	out["execution"] = "refresh.js"
	return out
}

// funcs are the console's template functions.
func funcs() template.FuncMap {
	return template.FuncMap{
		"when":        when,
		"whenp":       func(t *time.Time) string { return when(domain.Deref(t)) },
		"age":         age,
		"label":       label,
		"actionLabel": func(a any) string { return actionLabel(domain.Action(fmt.Sprint(a))) },
		"deref":       func(s *string) string { return domain.Deref(s) },
		"join":        strings.Join,
	}
}

// when is a time as pages show it.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// age is a duration as the queue shows it: the largest two units.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d d %d h", int(d.Hours())/24, int(d.Hours())%24)
}

// label is a snake_case value as words: "in_progress" → "in progress".
func label(v any) string {
	if p, ok := v.(*string); ok {
		v = domain.Deref(p)
	}
	return strings.ReplaceAll(fmt.Sprint(v), "_", " ")
}
