package console

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// prefixPattern is a stage prefix as httplambda sets it ("/prod"); anything
// else in the header is ignored, so no link or redirect can leave the site.
var prefixPattern = regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)+$`)

// basePath is the console's path as the browser sees it: behind API
// Gateway's stage prefix, when there is one.
func basePath(r *http.Request) string {
	p := r.Header.Get("X-Forwarded-Prefix")
	if len(p) > 200 || !prefixPattern.MatchString(p) {
		p = ""
	}
	return p + "/console"
}

// settingsPath is the settings area's path beside the console, behind the
// same stage prefix.
func settingsPath(r *http.Request) string {
	return strings.TrimSuffix(basePath(r), "/console") + "/settings"
}

// redirect sends the browser on with a GET (303).
func redirect(w http.ResponseWriter, path string) {
	w.Header().Set("Location", path)
	w.WriteHeader(http.StatusSeeOther)
}

// pathID is the positive id in the path's {id}, or ok false after a 404.
func (c *call) pathID() (int64, bool) {
	id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		c.message(http.StatusNotFound, msgNotFound)
		return 0, false
	}
	return id, true
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
