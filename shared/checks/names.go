package checks

import (
	"strings"
	"unicode"

	"github.com/evs-kyb/evs/shared/domain"
)

// MaxScreeningNames is how many names one query sends: yente uses at most
// five representative names for its text search, so a sixth would be
// sent and never searched for.
const MaxScreeningNames = 5

// ScreenedName is one name a screening sent, with where it came from and
// the honorific taken off it (sent as title where the schema has one).
type ScreenedName struct {
	Name   string
	Source domain.NameSource
	Title  string
}

// honorifics are the forms of address a name may begin with, in Arabic
// and in Latin script, without their trailing dot: yente matches names
// as written and strips none of them, so «السيد محمد» would be compared
// as a two-word name. Longer forms come first so that «صاحب السمو» is
// taken whole.
var honorifics = []string{
	"صاحب السمو الملكي", "صاحب السمو", "صاحبة السمو", "سمو", "معالي", "سعادة",
	"السيد", "السيدة", "الآنسة", "الشيخ", "الشيخة", "الأمير", "الأميرة",
	"الدكتور", "الدكتورة", "المهندس", "المهندسة", "د", "م",
	"his royal highness", "her royal highness", "his excellency", "her excellency",
	"hrh", "h.e", "mr", "mrs", "ms", "miss", "dr", "eng", "sheikh", "shaikh", "sheikha", "prince", "princess",
}

// SplitTitle takes the honorifics a name begins with off it: the name
// without them, and them (as written, space-separated). A name that is
// nothing but an honorific is kept as it is.
func SplitTitle(name string) (rest, title string) {
	words := strings.Fields(name)
	var titles []string
	for len(words) > 1 {
		n := leadingHonorific(words)
		if n == 0 || n == len(words) {
			break
		}
		titles = append(titles, strings.Join(words[:n], " "))
		words = words[n:]
	}
	return strings.Join(words, " "), strings.Join(titles, " ")
}

// leadingHonorific is how many of words make the honorific they begin
// with, 0 for none.
func leadingHonorific(words []string) int {
	for _, h := range honorifics {
		hw := strings.Fields(h)
		if len(hw) > len(words) {
			continue
		}
		match := true
		for i, w := range hw {
			if foldWord(words[i]) != w {
				match = false
				break
			}
		}
		if match {
			return len(hw)
		}
	}
	return 0
}

// foldWord is a word as honorifics are compared: lower case, without the
// dots and commas around it ("Dr." and "dr" alike; «د.» and «د»).
func foldWord(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return r == '.' || r == ',' || r == '،' }))
}

// nameKey is what tells two names apart for screening: the same letters
// and digits in the same order, whatever the case, spacing and
// punctuation ("AL-WAHA  Co." and "al waha co" are one name).
func nameKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ScreeningNames are the names a screening sends, from every name the
// business is known by, in the order given (the register's first): each
// with its honorifics taken off, the spaces collapsed, a name that says
// nothing (no letter or digit) left out, each name once (nameKey), at most
// MaxScreeningNames. left are the names that did not fit, in order.
func ScreeningNames(names []domain.EntityName) (sent []ScreenedName, left []ScreenedName) {
	seen := map[string]bool{}
	for _, n := range names {
		rest, title := SplitTitle(strings.Join(strings.Fields(n.Name), " "))
		key := nameKey(rest)
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		s := ScreenedName{Name: rest, Source: n.Source, Title: title}
		if len(sent) < MaxScreeningNames {
			sent = append(sent, s)
		} else {
			left = append(left, s)
		}
	}
	return sent, left
}

// namesResult is how a check's result lists screened names.
func namesResult(ns []ScreenedName) []any {
	out := make([]any, 0, len(ns))
	for _, n := range ns {
		m := map[string]any{"name": n.Name, "source": string(n.Source)}
		if n.Title != "" {
			m["title"] = n.Title
		}
		out = append(out, m)
	}
	return out
}

// queryKeys are the keys of a screening's result that say what was asked.
var queryKeys = []string{"names_screened", "names_not_sent", "names_partial", "names_partial_reason", "query"}

// CarryQuery copies what a screening asked (its names and query) from the
// result of the check that asked it into a later answer's result: a
// provider's webhook answers the query its reference names, and says
// nothing of what that query was.
func CarryQuery(asked, answer map[string]any) {
	for _, k := range queryKeys {
		if v, ok := asked[k]; ok {
			answer[k] = v
		}
	}
}
