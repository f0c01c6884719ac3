package console

import "github.com/evs-kyb/evs/shared/webpage"

// The console's own messages, beside the shell's: enrolment links and the
// second operator's approval.
func msgLinkUnknown() webpage.Message {
	return webpage.Message{Title: "Enrolment link not valid", Text: "This link is not valid. Check that you opened the whole link, or ask your administrator for a new one."}
}

func msgLinkUsed() webpage.Message {
	return webpage.Message{Title: "Enrolment link already used", Text: "This link was used already: each link works once. Sign in with your passkey, or ask your administrator for a new link.", SignIn: true}
}

func msgLinkExpired() webpage.Message {
	return webpage.Message{Title: "Enrolment link expired", Text: "This link has expired: a link lasts 15 minutes. Ask your administrator for a new one."}
}

func msgOperatorDisabled() webpage.Message {
	return webpage.Message{Title: "Access disabled", Text: "The operator this link was made for is disabled."}
}

func msgEnrolExpired() webpage.Message {
	return webpage.Message{Title: "Open the link again", Text: "This page could not be checked as the one your link opened (it is too old, or came from elsewhere). Nothing was used: open the link again."}
}

func msgMaker() webpage.Message {
	return webpage.Message{Title: "Not yours to approve", Text: "You made this decision: a second operator must approve or refuse it."}
}

func msgBlocked() webpage.Message {
	return webpage.Message{Title: "Not allowed yet", Text: "The decision policy does not allow this decision on the review as it stands. Nothing was signed or changed. What stands in its way:"}
}
