package console

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

// answerPage is a check's provider answer as kept: how it came, whether
// it still hashes to what the check recorded, its values line by line and
// the JSON as received one click away.
type answerPage struct {
	Check    domain.Check
	ReviewID int64 // the review the operator came from (0: none)
	answerView
}

// answerView is a kept answer as the pages show it.
type answerView struct {
	Kept     bool   // a body is kept and could be read
	NotKept  string // why not, when not
	Evidence domain.Evidence
	// Verified: the body hashes to the evidence's SHA-256 and size, and
	// those are what the check's result recorded (another table, written
	// in the same transaction).
	Verified bool
	Computed string // the body's SHA-256 now
	Lines    []answerLine
	Raw      string // indented JSON, or the body as text; "" when too large
}

// answerLine is one value of the answer with where it sits in it.
type answerLine struct{ Path, Value string }

// Bounds of what one page shows: the whole answer is always readable with
// the admin command evidence.get.
const (
	maxAnswerLines = 2000
	maxAnswerRaw   = 1 << 20
)

func (h *handler) answerPageOf(c *webpage.Call) {
	id, ok := c.PathID()
	if !ok {
		return
	}
	ctx := c.R.Context()
	chk, err := h.d.Store.Check(ctx, c.Session.AccountID, id)
	if err != nil {
		c.Fail(err)
		return
	}
	view, err := h.answer(c, chk)
	if err != nil {
		c.Fail(err)
		return
	}
	page := answerPage{Check: chk, answerView: view}
	page.ReviewID, _ = strconv.ParseInt(c.R.URL.Query().Get("review"), 10, 64)
	c.Render(http.StatusOK, "answer", "The provider’s answer to check "+itoa(chk.ID), "queue", page)
}

// answer reads a check's kept answer and checks it against the hash the
// check recorded; an answer not kept is a view saying why, not an error.
func (h *handler) answer(c *webpage.Call, chk domain.Check) (answerView, error) {
	ev, err := checks.ReadEvidence(c.R.Context(), h.d.Store, h.d.Blobs, chk.AccountID, chk.ID)
	switch {
	case domain.ErrorCode(err) == domain.ECodeNotFound:
		return answerView{NotKept: domain.ErrorMessage(err)}, nil
	case err != nil:
		return answerView{}, err
	case !ev.Stored:
		return answerView{Evidence: ev, NotKept: ev.StoredReason}, nil
	}
	ok, got := ev.Verify()
	recorded, _ := chk.Result["evidence"].(map[string]any)
	sum, _ := recorded["sha256"].(string)
	v := answerView{Kept: true, Evidence: ev, Computed: got, Verified: ok && sum == ev.SHA256}
	v.Lines, v.Raw = readable(ev.Body)
	return v, nil
}

// readable is a body's values, one line per value with its path, and the
// body indented; a body that is not JSON is shown as text.
func readable(body []byte) ([]answerLine, string) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		if len(body) > maxAnswerRaw {
			return nil, ""
		}
		return nil, string(bytes.ToValidUTF8(body, []byte("\uFFFD")))
	}
	var lines []answerLine
	flatten("", doc, &lines)
	var raw string
	if len(body) <= maxAnswerRaw {
		var b bytes.Buffer
		if json.Indent(&b, body, "", "  ") == nil {
			raw = b.String()
		}
	}
	return lines, raw
}

// flatten appends v's values with their paths ("responses.q1.results[0].id"),
// up to maxAnswerLines.
func flatten(path string, v any, out *[]answerLine) {
	if len(*out) >= maxAnswerLines {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			flatten(joinPath(path, k), x[k], out)
		}
	case []any:
		for i, e := range x {
			flatten(path+"["+strconv.Itoa(i)+"]", e, out)
		}
	case nil:
		*out = append(*out, answerLine{Path: path, Value: "null"})
	default:
		*out = append(*out, answerLine{Path: path, Value: plain(x)})
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
