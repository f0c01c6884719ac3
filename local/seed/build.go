package seed

import (
	"math/rand/v2"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// Building a demo entity from its plan.

func demoEntity(r *rand.Rand, now time.Time, i int, created time.Time, turns listingTurns) domain.EntityDetail {
	country, st := randomCountry(r), randomStatus(r)
	var tweak func(*plan, *rand.Rand)
	if i%3 == 0 && i/3 < len(scenarios) {
		s := scenarios[i/3]
		country, st, tweak = s.country, s.status, s.tweak
	}
	p := planFor(r, country, st)
	if tweak != nil {
		tweak(&p, r)
	}
	p.normalize()

	e := domain.Entity{Status: p.status, CreatedAt: created}
	if p.country == saCode {
		e.CountryCode, e.CountryID, e.RegistrationNumber = saCode, saNumeric, saRegistration(i)
	} else {
		e.CountryCode, e.CountryID, e.RegistrationNumber = aeCode, aeNumeric, aeRegistration(i)
	}
	core, sector := pick(r, saCores), pick(r, sectors)
	suffix := pick(r, saSuffixes)
	if p.country == aeCode {
		core, suffix = pick(r, aeCores), pick(r, aeSuffixes)
	}
	e.LegalName = core + " " + sector + " " + suffix
	if name, ok := specialNames[i]; ok {
		e.LegalName = name
	}
	if name, ok := arabicNames[i]; ok && p.country == saCode {
		e.LegalName = name
	}
	// A business whose screening finds something bears a listed name (its
	// site and page named after it; none for a name in Arabic script).
	listed, isListed := listedName(&p, turns)
	if isListed {
		e.LegalName, core, sector = listed.Name, listed.Name, ""
	}
	e.UpdatedAt = lastChange(r, now, created, p.status)
	life := span{e.CreatedAt, e.UpdatedAt}

	if pct(r, 55) && slug(core) != "" {
		e.WebsiteURL = new(website(core, sector, p.country))
	}
	if pct(r, 40) && slug(core) != "" {
		e.SocialURL = new(social(r, core, sector))
	}
	if pct(r, 50) {
		e.ActivitySummary = new(pick(r, activities))
	}
	e.Parties = demoParties(r, r.IntN(5))
	e.RelationshipsCount = domain.CurrentParties(e.Parties)
	switch {
	case p.fewDocuments:
		e.DocumentsCount = r.IntN(2)
	case p.status == domain.EntityDraft:
		e.DocumentsCount = r.IntN(3)
	default:
		e.DocumentsCount = r.IntN(7)
	}

	reviews, marks := buildReviews(r, p, life)
	cs := buildChecks(r, p, e, life, marks, i, turns)
	e.ChecksCount, e.ReviewsCount = len(cs), len(reviews)
	if len(reviews) > 0 {
		reviews[0].ChecksCount = len(cs)
	}
	e.SanctionsStatus = sanctionsFrom(cs)
	e.RegistrationStatus = registrationFrom(p, cs)
	e.Score = checks.ScoreOf(e, cs)
	if p.assessed {
		e.Risk = &domain.RiskAssessment{Level: riskLevel(r, p, e), AssessedAt: marks.decided}
		if e.Risk.AssessedAt.IsZero() {
			e.Risk.AssessedAt = life.at(between(r, 0.2, 1))
		}
	}
	return domain.EntityDetail{Entity: e, Checks: cs, Reviews: reviews}
}

// listedName is the listing whose name the entity bears when a screening
// of it completed finding something: of the kind its strongest outcome
// (hit over needs_review). A name's answers agree: an earlier screening
// planned with the other finding is planned with this one.
func listedName(p *plan, turns listingTurns) (Listing, bool) {
	org := []*checkPlan{&p.screening}
	if p.extra == extraOperatorRescreen || p.extra == extraPeriodicRescreen {
		org = append(org, &p.extraCheck)
	}
	strongest := ""
	for _, cp := range org {
		if cp.status != domain.CheckCompleted || cp.outcome == scrClear {
			continue
		}
		if strongest == "" || cp.outcome == scrHit {
			strongest = cp.outcome
		}
	}
	if strongest == "" {
		return Listing{}, false
	}
	for _, cp := range org {
		if cp.status == domain.CheckCompleted && cp.outcome != scrClear {
			cp.outcome = strongest
		}
	}
	return turns.next(p.country, false, strongest)
}

func slug(words ...string) string {
	var parts []string
	for _, w := range words {
		for _, f := range strings.Fields(strings.ToLower(w)) {
			f = strings.Map(func(ch rune) rune {
				if ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' {
					return ch
				}
				return -1
			}, f)
			if f != "" {
				parts = append(parts, f)
			}
		}
	}
	return strings.Join(parts, "-")
}

func website(core, sector, country string) string {
	tld := ".com.sa"
	if country == aeCode {
		tld = ".ae"
	}
	return "https://www." + slug(core, sector) + tld
}

func social(r *rand.Rand, core, sector string) string {
	if pct(r, 60) {
		return "https://www.linkedin.com/company/" + slug(core, sector)
	}
	return "https://x.com/" + strings.ReplaceAll(slug(core), "-", "")
}

// riskLevel is the plan's forced level or one that fits what the checks
// found.
func riskLevel(r *rand.Rand, p plan, e domain.Entity) domain.RiskLevel {
	if p.risk != "" {
		return p.risk
	}
	switch {
	case e.SanctionsStatus == domain.SanctionsHit:
		return domain.RiskHigh
	case e.SanctionsStatus == domain.SanctionsNeedsReview:
		return weighted(r, c(domain.RiskMedium, 60), c(domain.RiskHigh, 40))
	case e.RegistrationStatus == domain.RegistrationInvalid || e.RegistrationStatus == domain.RegistrationExpired:
		return weighted(r, c(domain.RiskMedium, 50), c(domain.RiskHigh, 50))
	case p.fewDocuments:
		return domain.RiskMedium
	}
	return weighted(r, c(domain.RiskLow, 75), c(domain.RiskMedium, 20), c(domain.RiskHigh, 5))
}
