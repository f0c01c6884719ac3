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

// ScoreOf is the coverage score of entity e whose checks are cs: nil until
// some check has completed. The registry points need a completed registry
// lookup and a registration that is valid (the entity's status follows its
// latest lookup); the screening points any completed screening; documents
// and online presence are read from e. Intake and the demo data both score
// with it, so the two cannot drift apart.
func ScoreOf(e domain.Entity, cs []domain.Check) *domain.Score {
	var looked, screened, anyDone bool
	for _, c := range cs {
		if c.Status != domain.CheckCompleted {
			continue
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
	return Coverage(CoverageInput{
		RegistryValid: looked && e.RegistrationStatus == domain.RegistrationValid, Screened: screened,
		Documents: e.DocumentsCount, Website: e.WebsiteURL != nil, Social: e.SocialURL != nil,
	})
}

// ScoreAfterScreening is the entity's score once a screening has completed:
// the screening component at its maximum, the others as they were (or, for
// an entity not scored yet, as its record shows them).
func ScoreAfterScreening(e domain.Entity) *domain.Score {
	if e.Score == nil || len(e.Score.Breakdown) == 0 {
		return Coverage(CoverageInput{
			RegistryValid: e.RegistrationStatus == domain.RegistrationValid, Screened: true,
			Documents: e.DocumentsCount, Website: e.WebsiteURL != nil, Social: e.SocialURL != nil,
		})
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
