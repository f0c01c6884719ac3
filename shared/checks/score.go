package checks

import "github.com/evs-kyb/evs/shared/domain"

// Coverage score components: key and the most points each can give. The
// score says how much of the entity has been verified, not how risky it is.
const (
	ScoreRegistry       = "registry"
	ScoreScreening      = "screening"
	ScoreDocuments      = "documents"
	ScoreOnlinePresence = "online_presence"

	MaxRegistry       = 40
	MaxScreening      = 30
	MaxDocuments      = 20 // 5 a document
	MaxOnlinePresence = 10 // 5 for a website, 5 for a social profile
)

// CoverageInput is what the score is computed from.
type CoverageInput struct {
	RegistryValid bool // a completed registry lookup found a valid register
	Screened      bool // a screening completed (whatever it found)
	Documents     int
	Website       bool
	Social        bool
}

// Coverage computes the coverage score with its breakdown.
func Coverage(in CoverageInput) *domain.Score {
	all := func(ok bool, max int) int {
		if ok {
			return max
		}
		return 0
	}
	online := 0
	if in.Website {
		online += MaxOnlinePresence / 2
	}
	if in.Social {
		online += MaxOnlinePresence / 2
	}
	s := &domain.Score{Breakdown: []domain.ScoreComponent{
		{Key: ScoreRegistry, Label: "Registry lookup", Points: all(in.RegistryValid, MaxRegistry), Max: MaxRegistry},
		{Key: ScoreScreening, Label: "Sanctions screening", Points: all(in.Screened, MaxScreening), Max: MaxScreening},
		{Key: ScoreDocuments, Label: "Documents", Points: min(MaxDocuments, 5*max(in.Documents, 0)), Max: MaxDocuments},
		{Key: ScoreOnlinePresence, Label: "Online presence", Points: online, Max: MaxOnlinePresence},
	}}
	for _, c := range s.Breakdown {
		s.Value += c.Points
	}
	return s
}

// CoverageFrom reads the coverage inputs back from an entity's record: the
// registration, documents and online presence it shows, and a screening
// when its score already counts one. Whatever changes one of them (an
// operator's edit, a screening, checks run again) rescores from it.
func CoverageFrom(e domain.Entity) CoverageInput {
	in := CoverageInput{
		RegistryValid: e.RegistrationStatus == domain.RegistrationValid,
		Documents:     e.DocumentsCount, Website: e.WebsiteURL != nil, Social: e.SocialURL != nil,
	}
	if e.Score != nil {
		for _, c := range e.Score.Breakdown {
			if c.Key == ScoreScreening && c.Points > 0 {
				in.Screened = true
			}
		}
	}
	return in
}

// ScoreOf is the coverage score of entity e whose checks are cs: nil until
// some check has completed. The registry points need a completed registry
// lookup and a registration that is valid (the entity's status follows its
// latest lookup); the screening points any completed screening; documents
// and online presence are read from e. Intake and the demo data both score
// with it, so the two cannot drift apart.
func ScoreOf(e domain.Entity, cs []domain.Check) *domain.Score {
	var looked, screened, anyDone bool
	for _, c := range cs {
		if c.Status != domain.CheckCompleted || c.SubjectType != nil {
			continue // a party's check says nothing of the entity's register
		}
		anyDone = true
		switch c.Type {
		case domain.CheckRegistryLookup:
			looked = true
		case domain.CheckOrganizationScreening:
			screened = true
		}
	}
	if !anyDone {
		return nil
	}
	in := CoverageFrom(e)
	in.RegistryValid = looked && in.RegistryValid
	in.Screened = screened // the checks say, not an earlier score
	return Coverage(in)
}

// ScoreAfterScreening is the entity's score once a screening has completed:
// the screening component at its maximum, the others as they were (or, for
// an entity not scored yet, as its record shows them).
func ScoreAfterScreening(e domain.Entity) *domain.Score {
	if e.Score == nil || len(e.Score.Breakdown) == 0 {
		in := CoverageFrom(e)
		in.Screened = true
		return Coverage(in)
	}
	s := &domain.Score{Breakdown: append([]domain.ScoreComponent(nil), e.Score.Breakdown...)}
	for i, c := range s.Breakdown {
		if c.Key == ScoreScreening {
			s.Breakdown[i].Points = c.Max
		}
		s.Value += s.Breakdown[i].Points
	}
	return s
}
