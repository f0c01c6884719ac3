package settings

import "github.com/evs-kyb/evs/shared/webpage"

// The settings area's own messages, beside the shell's.
func msgSignedOutDone() webpage.Message {
	return webpage.Message{Title: "Signed out", Text: "You signed out of the settings area.", SignIn: true}
}

func msgLinkUnknown() webpage.Message {
	return webpage.Message{Title: "Link not valid", Text: "This link is not valid. Check that you opened the whole link.", SignIn: true}
}

func msgSecretConflict() webpage.Message {
	return webpage.Message{Title: "Not done", Text: "Nothing more was changed. If you sent this form twice, the first one took effect, " +
		"and the secret it made cannot be shown again: rotate the endpoint's secret to get a new one."}
}
