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

// wantsMarkdown reads the Accept header: Markdown when text/markdown is
// preferred over application/json: a higher quality, or the same quality from
// a more specific range, or the same from an equally specific range listed
// first. JSON otherwise, including when the header is absent or names neither.
func wantsMarkdown(accept string) bool {
	if accept == "" {
		return false
	}
	qJSON, specJSON, posJSON := acceptQ(accept, mediaJSON)
	qMD, specMD, posMD := acceptQ(accept, mediaMarkdown)
	switch {
	case qMD <= 0:
		return false
	case qMD != qJSON:
		return qMD > qJSON
	case specMD != specJSON:
		return specMD > specJSON
	default:
		return posMD < posJSON
	}
}

// acceptQ returns the quality the Accept header gives a media type, how
// specific the range that gave it was (2 exact, 1 type/*, 0 */*, -1 none) and
// where that range stands in the header.
func acceptQ(accept, media string) (q float64, specificity, position int) {
	typ, _, _ := strings.Cut(media, "/")
	specificity = -1
	for i, part := range strings.Split(accept, ",") {
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
		specificity, q, position = s, 1, i
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
	}
	return q, specificity, position
}
