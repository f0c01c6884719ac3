package checks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// Registry looks registration numbers up in a commercial register.
type Registry interface {
	Lookup(ctx context.Context, number string) (RegistryRecord, error)
}

// Screener screens organisations against sanctions lists.
type Screener interface {
	Screen(ctx context.Context, q ScreeningQuery) (ScreeningResult, error)
}

// Runner runs checks against the configured providers.
type Runner struct {
	Registries map[string]Registry // by provider key
	Screeners  map[string]Screener // by provider key
	// Clock stamps the checks and the entity (required).
	Clock domain.Clock
	// NoEvidence leaves the providers' answers out of the checks (no
	// evidence in results, nothing for the store to keep). Only the
	// benchmark sets it, to weigh what keeping evidence costs a create.
	NoEvidence bool
	// Blobs keeps the answers too large for their evidence item
	// (KeepEvidence); nil keeps none of them (stored false, with why).
	Blobs BlobPutter
}

// blobTimeout bounds the write of one answer to the blob store, on its own
// clock: the provider may have used most of the check's timeout.
const blobTimeout = 5 * time.Second

// IntakeInput is a new entity as the caller described it.
type IntakeInput struct {
	AccountID          int64
	RegistrationNumber string
	CountryCode        string
	CountryID          int
	// DeclaredName is the caller's name for the entity, screened with the
	// register's and kept as a name of the entity (legal_name unless the
	// register knows better).
	DeclaredName string
	// KnownNames are the names the entity already has (a re-run): the
	// declared ones are screened again; the register's only when the
	// register does not answer this time.
	KnownNames []domain.EntityName
	Config     domain.CountryConfig
	// CheckIDs are the ids reserved for the checks, one per configured
	// check: a screening's reference names its check, so the provider's
	// later webhook finds it.
	CheckIDs []int64
	// Trigger is the checks' triggering reason (intake when empty).
	Trigger string
	// ReviewID links the checks to a review (set by the store at intake).
	ReviewID *int64
	// ExcludeEntityIDs are screening matches dismissed as false positives.
	ExcludeEntityIDs []string
	// KnownParties are the entity's parties (a re-run): one the register
	// lists again keeps its id; one it no longer lists ends (current
	// false, until now).
	KnownParties []domain.Party
	// Reserve gives ids to the parties the register lists and to the
	// lookups of its company partners (intake_ownership.go); nil: the
	// company partners are not looked up, and the store numbers the
	// parties.
	Reserve IDReserver
	// OwnershipThresholdPercent is the account's threshold of beneficial
	// ownership (domain.AccountSettings.OwnershipThreshold; 0: the law's).
	OwnershipThresholdPercent int
}

// ScreeningReference names a check in a screening provider's query, and in
// the webhook that later reports on it.
func ScreeningReference(accountID, checkID int64) string {
	return fmt.Sprintf("evs-%d-%d", accountID, checkID)
}

// ParseScreeningReference reads a reference made by ScreeningReference.
func ParseScreeningReference(ref string) (accountID, checkID int64, ok bool) {
	n, err := fmt.Sscanf(ref, "evs-%d-%d", &accountID, &checkID)
	return accountID, checkID, err == nil && n == 2 && accountID > 0 && checkID > 0 && ScreeningReference(accountID, checkID) == ref
}

// Intake runs the country's intake checks and returns the entity to create
// with its checks and its initial review: the register lookups first
// (concurrently), then the screenings (concurrently), on every name the
// business has, the register's first; so a create takes the two providers'
// times in sequence. Each check runs within its own timeout. A provider
// that fails or times out fails its check (recorded with what went wrong)
// and leaves the fields it would have set at their unknown values; it never
// fails the intake. A screening that ran without the register's names
// (the register failed or does not know the number) says it screened a
// partial name set, and the decision policy holds an approval until one
// that did not is complete.
func (r *Runner) Intake(ctx context.Context, in IntakeInput) domain.EntityDetail {
	now := r.Clock.Now()
	e := domain.Entity{
		AccountID:          in.AccountID,
		RegistrationNumber: in.RegistrationNumber,
		LegalName:          in.DeclaredName,
		CountryCode:        in.CountryCode,
		CountryID:          in.CountryID,
		Status:             domain.EntityReadyForReview,
		RegistrationStatus: domain.RegistrationUnknown,
		SanctionsStatus:    domain.SanctionsNotRun,
		CreatedAt:          now,
	}
	checks := make([]domain.Check, len(in.Config.IntakeChecks))
	parties := make([][]domain.Party, len(checks))
	r.runEach(ctx, in, now, checks, parties, nameSet{}, func(t domain.CheckType) bool { return t == domain.CheckRegistryLookup })
	names := intakeNames(in, checks)
	// The screenings, and meanwhile the register's company partners.
	var (
		partyChecks []domain.Check // the company partners' lookups, the parties' screenings
		owners      sync.WaitGroup
	)
	for i, c := range checks {
		if c.Type != domain.CheckRegistryLookup || c.Status != domain.CheckCompleted || len(parties[i]) == 0 && !recordedParties(in.KnownParties) {
			continue // a register that lists nobody (and no one recorded) leaves the owners unknown, not determined
		}
		found := parties[i]
		for k := range found {
			found[k].Since = c.CheckedAt
		}
		name, _ := c.Result["legal_name"].(string)
		spec := in.Config.IntakeChecks[i]
		owners.Go(func() {
			e.Parties, partyChecks, e.Ownership = r.followOwners(ctx, in, spec, name, found, *c.CheckedAt)
		})
		break // one register per country
	}
	r.runEach(ctx, in, now, checks, parties, names, func(t domain.CheckType) bool { return t != domain.CheckRegistryLookup })
	owners.Wait()
	checks = append(checks, partyChecks...)
	e.Names = names.all

	for _, c := range checks {
		if c.Status != domain.CheckCompleted || c.SubjectType != nil {
			continue // a company partner's lookup is about the partner
		}
		switch c.Type {
		case domain.CheckRegistryLookup:
			e.RegistrationStatus = domain.RegistrationStatus(fmt.Sprint(c.Result["registration_status"]))
			if name, _ := c.Result["legal_name"].(string); name != "" {
				e.LegalName = name
			}
		case domain.CheckOrganizationScreening:
			e.SanctionsStatus = domain.SanctionsStatus(fmt.Sprint(c.Result["status"]))
		}
	}
	e.Score = ScoreOf(e, checks)
	e.UpdatedAt = r.Clock.Now()
	review := domain.Review{
		AccountID: in.AccountID, Purpose: domain.ReviewInitial, Status: domain.ReviewOpen,
		CreatedAt: e.UpdatedAt, UpdatedAt: e.UpdatedAt,
	}
	return domain.EntityDetail{Entity: e, Checks: checks, Reviews: []domain.Review{review}}
}

// runEach runs, concurrently, the intake checks whose type is picked,
// filling their places in checks (and in parties, a register's parties).
func (r *Runner) runEach(ctx context.Context, in IntakeInput, now time.Time, checks []domain.Check, parties [][]domain.Party, names nameSet, picked func(domain.CheckType) bool) {
	var wg sync.WaitGroup
	for i, spec := range in.Config.IntakeChecks {
		if !picked(spec.Type) {
			continue
		}
		c := domain.Check{
			AccountID: in.AccountID, Type: spec.Type, ProviderKey: spec.ProviderKey,
			Status: domain.CheckRunning, TriggeringReason: firstNonEmpty(in.Trigger, domain.TriggerIntake), CreatedAt: now,
			ReviewID: in.ReviewID,
		}
		if i < len(in.CheckIDs) {
			c.ID = in.CheckIDs[i]
		}
		wg.Add(1)
		go func(i int, spec domain.IntakeCheck, c domain.Check) {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, time.Duration(max(spec.TimeoutMS, 1))*time.Millisecond)
			defer cancel()
			checks[i], parties[i] = r.run(cctx, c, in, names)
		}(i, spec, c)
	}
	wg.Wait()
}

// nameSet is what a screening screens: every name the business is known
// by, the register's first, and whether the register's are among them.
type nameSet struct {
	all []domain.EntityName
	// partial says why the register's names are not among them ("" when
	// they are, or no register is asked in the country).
	partial string
	// party, when set, is the query of a party's screening (partyQuery):
	// sent as it is, in place of one built from the entity's names.
	party *ScreeningQuery
}

// intakeNames are the names the business is known by after the register
// lookups of checks ran: the register's legal name and Latin name where a
// lookup completed and found the register; then the names
// it already had from elsewhere (a re-run keeps what the merchant
// declared); then the name declared now. The set is partial when the
// country's intake asks a register and none answered with the register's
// names, or when no name at all is known.
func intakeNames(in IntakeInput, checks []domain.Check) nameSet {
	var ns nameSet
	asked, answered := false, false
	var why string
	for _, c := range checks {
		if c.Type != domain.CheckRegistryLookup {
			continue
		}
		asked = true
		switch name, _ := c.Result["legal_name"].(string); {
		case c.Status != domain.CheckCompleted:
			why = "the register lookup (check " + fmt.Sprint(c.ID) + ") failed: " + fmt.Sprint(c.Result["error"])
		case name == "":
			why = "the register lookup (check " + fmt.Sprint(c.ID) + ") found no register for the number"
		default:
			answered = true
			ns.all = append(ns.all, registerNames(c.Result)...)
		}
	}
	for _, n := range in.KnownNames {
		if n.Source == domain.NameDeclared || !answered {
			ns.all = appendName(ns.all, n)
		}
	}
	if in.DeclaredName != "" {
		ns.all = appendName(ns.all, domain.EntityName{Name: in.DeclaredName, Source: domain.NameDeclared})
	}
	switch {
	case asked && !answered:
		ns.partial = why
	case len(ns.all) == 0:
		ns.partial = "no name of the business is known: none was declared and the country's intake asks no register"
	}
	return ns
}

// registerNames are the names a completed register lookup's result gives.
func registerNames(result map[string]any) []domain.EntityName {
	var out []domain.EntityName
	if n, _ := result["legal_name"].(string); n != "" {
		out = append(out, domain.EntityName{Name: n, Source: domain.NameRegister})
	}
	if n, _ := result["legal_name_en"].(string); n != "" {
		out = append(out, domain.EntityName{Name: n, Source: domain.NameRegisterLatin})
	}
	return out
}

// appendName adds n to names unless a name with the same letters is
// there already (the first source given stays).
func appendName(names []domain.EntityName, n domain.EntityName) []domain.EntityName {
	key := nameKey(n.Name)
	if key == "" {
		return names
	}
	for _, have := range names {
		if nameKey(have.Name) == key {
			return names
		}
	}
	return append(names, n)
}

// run runs one check and returns it completed or failed, with the
// parties a register's answer lists.
func (r *Runner) run(ctx context.Context, c domain.Check, in IntakeInput, names nameSet) (domain.Check, []domain.Party) {
	var (
		result         map[string]any
		providerStatus string
		ev             *domain.Evidence
		err            error
		parties        []domain.Party
	)
	switch c.Type {
	case domain.CheckRegistryLookup:
		reg, ok := r.Registries[c.ProviderKey]
		if !ok {
			err = fmt.Errorf("no registry provider %q is configured", c.ProviderKey)
			break
		}
		var rec RegistryRecord
		rec, err = reg.Lookup(ctx, in.RegistrationNumber)
		ev = rec.Evidence
		if err == nil {
			providerStatus = rec.StatusID
			result = RegistryResult(rec)
			parties = rec.Parties
		}
	case domain.CheckOrganizationScreening:
		sc, ok := r.Screeners[c.ProviderKey]
		if !ok {
			err = fmt.Errorf("no screening provider %q is configured", c.ProviderKey)
			break
		}
		sent, left := ScreeningNames(names.all)
		var res ScreeningResult
		q := ScreeningQuery{
			Reference: ScreeningReference(in.AccountID, c.ID), Names: sent,
			Jurisdiction: in.CountryCode, RegistrationNumber: in.RegistrationNumber,
			ExcludeEntityIDs: in.ExcludeEntityIDs,
		}
		if names.party != nil {
			q = *names.party
			q.Reference, q.ExcludeEntityIDs, sent, left = ScreeningReference(in.AccountID, c.ID), in.ExcludeEntityIDs, names.party.Names, nil
		}
		res, err = sc.Screen(ctx, q)
		ev = res.Evidence
		if err == nil {
			providerStatus = "200"
			result = ScreeningResultMap(res)
		} else {
			result = map[string]any{}
		}
		// What was asked is recorded whether or not it was answered.
		result["names_screened"] = namesResult(sent)
		if len(left) > 0 {
			result["names_not_sent"] = namesResult(left)
		}
		result["names_partial"] = names.partial != ""
		if names.partial != "" {
			result["names_partial_reason"] = names.partial
		}
	default:
		err = fmt.Errorf("unknown check type %q", c.Type)
	}
	at := r.Clock.Now()
	c.CheckedAt, c.UpdatedAt = &at, at
	if err != nil {
		c.Status = domain.CheckFailed
		c.ProviderStatus = "error"
		var pe *ProviderError
		if errors.As(err, &pe) {
			c.ProviderStatus = pe.Status
			ev = pe.Evidence
		}
		// The message says what went wrong without the provider's URL or
		// credentials (ProviderError messages carry neither).
		if result == nil {
			result = map[string]any{}
		}
		result["status"], result["error"] = "failed", failureMessage(err)
	} else {
		c.Status = domain.CheckCompleted
		c.ProviderStatus = providerStatus
	}
	// A provider that answered, even with a failure, leaves its answer as
	// evidence; a timeout or an unreachable provider leaves none.
	if ev != nil && !r.NoEvidence {
		e := *ev
		e.AccountID, e.CheckID = c.AccountID, c.ID
		r.keep(ctx, &e)
		c.Evidence = &e
		result["evidence"] = e.ResultMap()
	}
	c.Result = Sanitize(c.Type, result)
	return c, parties
}

// keep writes a large answer to the blob store. The intake cannot fail on
// it (a create has no way to ask again for a provider's answer): a write
// that fails leaves the answer not kept, the check saying so in its
// evidence, and the error in the log (never the body).
func (r *Runner) keep(ctx context.Context, e *domain.Evidence) {
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), blobTimeout)
	defer cancel()
	if err := KeepEvidence(bctx, r.Blobs, e); err != nil {
		logging.From(ctx).Error("evidence not kept: the blob store refused the answer",
			"check_id", e.CheckID, "provider", e.Provider, "size", e.Size, "error", err.Error())
		e.Body, e.Stored = nil, false
		e.StoredReason = "the answer is larger than the 350 KB kept in the evidence table and could not be written to the evidence bucket; its hash and size are recorded, its bytes are not"
	}
}

// RegistryResult is the stored result of a registry lookup.
func RegistryResult(rec RegistryRecord) map[string]any {
	m := map[string]any{"status": rec.StatusID, "registration_status": string(rec.Status)}
	if rec.Found {
		m["legal_name"] = rec.Name
		m["cr_number"] = rec.CRNumber
		m["unified_number"] = rec.UnifiedNumber
		for k, v := range map[string]string{"expiry_date_hijri": rec.ExpiryHijri, "legal_name_en": rec.NameEn,
			"issue_date": rec.IssueDate, "city": rec.City, "legal_form": rec.LegalForm} {
			if v != "" {
				m[k] = v
			}
		}
		m["parties_count"] = len(rec.Parties)
		if len(rec.Activities) > 0 {
			acts := make([]any, len(rec.Activities))
			for i, a := range rec.Activities {
				acts[i] = map[string]any{"id": a.ID, "name": a.Name}
			}
			m["activities"] = acts
		}
	}
	return m
}

// ScreeningResultMap is the stored result of a screening: what it found
// and how (score, threshold, algorithm, dataset), so that a decision can be
// explained later.
func ScreeningResultMap(res ScreeningResult) map[string]any {
	matches := make([]any, 0, len(res.Matches))
	for _, m := range res.Matches {
		mm := map[string]any{"id": m.ID, "caption": m.Caption, "schema": m.Schema, "score": m.Score, "datasets": m.Datasets,
			"class": m.Class(), "topics": nonNil(m.Properties.Topics)}
		if m.Class() == ClassSanction && ByControl(m.Properties.Topics) {
			mm["by_control"] = true
		}
		if n := m.MatchedName(); n != "" {
			mm["matched_name"] = n
		}
		if m.IdentifierOnly() {
			mm["identifier_only"] = true
		}
		matches = append(matches, mm)
	}
	m := map[string]any{
		"status":        string(res.Status),
		"matched":       res.Matched,
		"matches_count": len(res.Matches),
		"top_score":     res.TopScore,
		"threshold":     res.Threshold,
		"algorithm":     res.Algorithm,
		"dataset":       res.Dataset,
		"matches":       matches,
	}
	if res.Query != nil {
		m["query"] = res.Query
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func failureMessage(err error) string {
	var pe *ProviderError
	if errors.As(err, &pe) {
		switch pe.Status {
		case "timeout":
			return "the provider did not answer within the check's timeout"
		case "unreachable":
			return "the provider could not be reached"
		case "bad_response":
			return "the provider's answer could not be read"
		}
		return fmt.Sprintf("the provider answered with HTTP status %s", pe.Status)
	}
	return err.Error()
}

// recordedParties tells whether any of ps was declared by the merchant or
// recorded by an operator: a re-run keeps, screens and counts them even
// where the register lists nobody.
func recordedParties(ps []domain.Party) bool {
	for _, p := range ps {
		if p.Source != domain.PartyFromRegister {
			return true
		}
	}
	return false
}
