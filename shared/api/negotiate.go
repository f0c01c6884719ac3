package api

import (
	"mime"
	"strconv"
	"strings"
)

const (
	mediaJSON     = "application/json"
	mediaMarkdown = "text/markdown"
)

// idAndFormat splits a path id into the id and whether the ".md" suffix asks
// for Markdown. A non-numeric id is not found, like an unknown one.
func idAndFormat(raw string) (id int64, markdown bool, ok bool) {
	if s, found := strings.CutSuffix(raw, ".md"); found {
		raw, markdown = s, true
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 || raw[0] == '+' {
		return 0, false, false
	}
	return id, markdown, true
}

// wantsMarkdown reads the Accept header: Markdown when text/markdown is
// preferred over application/json; JSON otherwise, including when the header
// is absent or names neither.
func wantsMarkdown(accept string) bool {
	if accept == "" {
		return false
	}
	qJSON, specJSON := acceptQ(accept, mediaJSON)
	qMD, specMD := acceptQ(accept, mediaMarkdown)
	if qMD != qJSON {
		return qMD > qJSON
	}
	return qMD > 0 && specMD > specJSON
}

// acceptQ returns the quality the Accept header gives a media type, and how
// specific the range that gave it was (2 exact, 1 type/*, 0 */*, -1 none).
func acceptQ(accept, media string) (q float64, specificity int) {
	typ, _, _ := strings.Cut(media, "/")
	specificity = -1
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		s := -1
		switch {
		case mt == media:
			s = 2
		case mt == typ+"/*":
			s = 1
		case mt == "*/*":
			s = 0
		}
		if s <= specificity {
			continue
		}
		specificity, q = s, 1
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
	}
	return q, specificity
}
