package console

import (
	"net/url"
	"strings"

	"github.com/evs-kyb/evs/shared/portal"
)

// EnrolPath is where an enrolment link leads, its token in the query
// parameter portal.LinkParam: <base>/console/enrol?token=evs_portal_….
// The link is a portal link like the settings area's; only the page it
// opens differs.
const EnrolPath = "/console/enrol"

// EnrolURL is the enrolment address of a link's token under the
// console's base URL (the stage's API URL, or http://localhost:3000 under
// make local: passkeys need the host to be the RP id, never an IP address).
func EnrolURL(base, token string) (string, error) {
	if err := portal.CheckBaseURL(base); err != nil {
		return "", err
	}
	return strings.TrimRight(base, "/") + EnrolPath + "?" + url.Values{portal.LinkParam: {token}}.Encode(), nil
}
