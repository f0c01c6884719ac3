package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/evs-kyb/evs/shared/logging"
)

// What the commands print depends on who reads it. At a terminal a person
// does: a command prints its answer and only the warnings and errors of its
// logs (as text), and a list is an aligned table. Anywhere else (a pipe, a
// file, CI, the tests) a program does, and everything stays as it always
// was: logs as JSON lines from info up, lists as one JSON line per item.
// LOG_LEVEL, --json and --table override the guesses.

// isTerminal reports whether f is a terminal: a character device other than
// the null device (go.mod has no golang.org/x/term, and this is enough to
// tell a person's terminal from a pipe or a file).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// isTerminalWriter is isTerminal for a writer that may not be a file.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

// cliLogLevel is the level a command logs at: setting (LOG_LEVEL) when it
// names a level (debug, info, warn, error, any case); otherwise warn for a
// command that answers and exits when its logs go to a terminal, so that
// the answer is all a person sees (the receiver's answer is the events it
// prints), and info for a server (up, stage-api: their logs are what a
// person watches) and wherever the logs do not go to a terminal (pipes,
// CI, tests), as before, so that nothing reading them loses a line.
func cliLogLevel(setting string, terminal, server bool) string {
	var l slog.Level
	if setting != "" && l.UnmarshalText([]byte(setting)) == nil {
		return setting
	}
	if terminal && !server {
		return "warn"
	}
	return "info"
}

// cliLogger is the logger of a command writing its logs to w (stderr): at
// cliLogLevel, as text lines at a terminal and JSON lines elsewhere.
func cliLogger(w io.Writer, server bool) *slog.Logger {
	terminal := isTerminalWriter(w)
	level := cliLogLevel(os.Getenv("LOG_LEVEL"), terminal, server)
	if terminal {
		return logging.NewText(w, level)
	}
	return logging.New(w, level)
}

// listFlags are a list command's --json and --table.
type listFlags struct {
	json, table bool
}

func addListFlags(fs *flag.FlagSet) *listFlags {
	l := &listFlags{}
	fs.BoolVar(&l.json, "json", false, "list: one JSON line per item (the default when stdout is not a terminal)")
	fs.BoolVar(&l.table, "table", false, "list: an aligned table of the main fields (the default at a terminal)")
	return l
}

// parseListing parses a command's flags, then refuses --json or --table
// where it prints no list (list false).
func parseListing(fs *flag.FlagSet, args []string, lf *listFlags, list bool) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return lf.check(fs.Name(), list)
}

// check refuses --json with --table, and either on a command that prints
// no list (list false).
func (l *listFlags) check(cmd string, list bool) error {
	switch {
	case l.json && l.table:
		return usageError{cmd + ": --json and --table exclude each other"}
	case (l.json || l.table) && !list:
		return usageError{cmd + ": --json and --table are for lists"}
	}
	return nil
}

// asTable reports whether a list is printed as a table: --table, or at a
// terminal unless --json.
func (l *listFlags) asTable(terminal bool) bool {
	return l.table || (terminal && !l.json)
}

// column is one column of a list's table: its heading and its cell of an
// item.
type column[T any] struct {
	head string
	cell func(T) string
}

// printList prints a list command's items on stdout, as l and stdout say.
func printList[T any](l *listFlags, items []T, cols []column[T]) error {
	return writeList(os.Stdout, l.asTable(isTerminal(os.Stdout)), items, cols)
}

// writeList writes items as one JSON line each (as printLine does) or as a
// table of cols: a heading line, then a line per item, aligned, each cell
// as cellText shows it.
func writeList[T any](w io.Writer, table bool, items []T, cols []column[T]) error {
	if !table {
		for _, it := range items {
			b, err := json.Marshal(it)
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := make([]string, len(cols))
	for i, c := range cols {
		row[i] = c.head
	}
	fmt.Fprintln(tw, strings.Join(row, "\t"))
	for _, it := range items {
		for i, c := range cols {
			row[i] = cellText(c.cell(it))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// cellText is s as one table cell: on one line, control characters (a
// tab, a newline, a terminal's escape, a direction mark) shown escaped
// rather than acted on; "-" when empty.
func cellText(s string) string {
	if s == "" {
		return "-"
	}
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// maxText is the most characters a table shows of free text (a reason, a
// description, an error); --json has it whole. Ids are never cut.
const maxText = 40

// short is free text s cut to maxText characters, with "…" when cut.
func short(s string) string {
	n := 0
	for i := range s {
		if n == maxText {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Cells of the usual kinds.

func idCell(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

func optIDCell(id *int64) string {
	if id == nil {
		return ""
	}
	return idCell(*id)
}

func optCell(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
