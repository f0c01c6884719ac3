package console

import (
	"net/http"
	"strconv"

	"github.com/evs-kyb/evs/shared/webpage"
)

// basePath is the console's path as the browser sees it: behind API
// Gateway's stage prefix, when there is one.
func basePath(r *http.Request) string { return webpage.StagePrefix(r) + "/console" }

// settingsPath is the settings area's path beside the console, behind the
// same stage prefix.
func settingsPath(r *http.Request) string {
	return webpage.StagePrefix(r) + "/settings"
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
