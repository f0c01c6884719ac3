// Package dossier renders the Markdown views of entities and reviews, the
// form an operator reads and decides on, and gives the dossier's ETags.
package dossier

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

// The Markdown views are for people: an operator pastes one into a ticket, an
// analyst reads it in a terminal. The layout is documented in the README
// ("Markdown views"); fields print as "- Label: value" lines so that, for
// example, "Risk level: Not assessed" reads the same in the source and
// rendered.

// ReviewPath is the API path of a review, which the entity's Markdown links.
func ReviewPath(id int64) string {
	return deploy.BasePath + "/entity_reviews/" + strconv.FormatInt(id, 10)
}

// EntityMarkdown renders an entity with its score breakdown, checks and reviews.
func EntityMarkdown(d domain.EntityDetail, countries *country.Catalogue) string {
	e := d.Entity
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdText(e.LegalName, "Unnamed entity"))
	fmt.Fprintf(&b, "- Entity ID: %d\n", e.ID)
	writeEntityID(&b, e, countries)
	fmt.Fprintf(&b, "- Registration status: %s\n", e.RegistrationStatus)
	writeEntityStanding(&b, e)
	fmt.Fprintf(&b, "- Website: %s\n", mdOpt(e.WebsiteURL))
	fmt.Fprintf(&b, "- Social: %s\n", mdOpt(e.SocialURL))
	fmt.Fprintf(&b, "- Business activity: %s\n", mdOpt(e.ActivitySummary))
	fmt.Fprintf(&b, "- Current relationships: %d\n", e.RelationshipsCount)
	fmt.Fprintf(&b, "- Documents: %d\n", e.DocumentsCount)
	fmt.Fprintf(&b, "- Updated at: %s\n", domain.FormatTime(e.UpdatedAt))

	writeScoreBreakdown(&b, e.Score)

	writeTable(&b, "Checks", "No checks have run.", d.Checks,
		[]string{"ID", "Type", "Provider", "Status", "Provider status", "Reason", "Result", "Checked at"},
		func(c domain.Check) string {
			return fmt.Sprintf("%d | %s | %s | %s | %s | %s | %s | %s",
				c.ID, c.Type, mdCell(c.ProviderKey), c.Status, mdCell(c.ProviderStatus), mdCell(c.TriggeringReason),
				mdCell(checkResultCell(c.Result)), optTimeLabel(c.CheckedAt))
		})
	writeTable(&b, "Reviews", "No reviews.", d.Reviews,
		[]string{"ID", "Purpose", "Status", "Outcome", "Reason", "Assignee", "Started", "Completed"},
		func(r domain.Review) string {
			return fmt.Sprintf("[%d](%s) | %s | %s | %s | %s | %s | %s | %s",
				r.ID, ReviewPath(r.ID), r.Purpose, r.Status, mdOpt(r.Outcome), mdOpt(r.OutcomeReason),
				mdOpt(r.AssignedUserName), optTimeLabel(r.StartedAt), optTimeLabel(r.CompletedAt))
		})
	return b.String()
}

// ReviewMarkdown renders a review with the summary of its entity.
func ReviewMarkdown(r domain.Review, e domain.Entity, countries *country.Catalogue) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Review %d: %s\n\n", r.ID, mdText(e.LegalName, "Unnamed entity"))
	fmt.Fprintf(&b, "- Purpose: %s\n", r.Purpose)
	fmt.Fprintf(&b, "- Status: %s\n", r.Status)
	fmt.Fprintf(&b, "- Outcome: %s\n", mdOpt(r.Outcome))
	fmt.Fprintf(&b, "- Outcome reason: %s\n", mdOpt(r.OutcomeReason))
	fmt.Fprintf(&b, "- Assignee: %s\n", mdOpt(r.AssignedUserName))
	fmt.Fprintf(&b, "- Started at: %s\n", optTimeLabel(r.StartedAt))
	fmt.Fprintf(&b, "- Completed at: %s\n", optTimeLabel(r.CompletedAt))
	fmt.Fprintf(&b, "- Notes: %d\n", r.NotesCount)
	fmt.Fprintf(&b, "- Checks: %d\n", r.ChecksCount)
	fmt.Fprintf(&b, "- Updated at: %s\n", domain.FormatTime(r.UpdatedAt))

	fmt.Fprintf(&b, "\n## Entity\n\n")
	fmt.Fprintf(&b, "- Entity ID: %d\n", e.ID)
	fmt.Fprintf(&b, "- Legal name: %s\n", mdText(e.LegalName, "—"))
	writeEntityID(&b, e, countries)
	writeEntityStanding(&b, e)
	writeScoreBreakdown(&b, e.Score)
	return b.String()
}

// writeEntityID and writeEntityStanding write the lines both views give of
// an entity, as the JSON views share entityIDJSON and entityStandingJSON.
func writeEntityID(b *strings.Builder, e domain.Entity, countries *country.Catalogue) {
	fmt.Fprintf(b, "- Registration number: %s\n", mdText(e.RegistrationNumber, "—"))
	fmt.Fprintf(b, "- Country: %s\n", countryLabel(e, countries))
	fmt.Fprintf(b, "- Status: %s\n", e.Status)
}

func writeEntityStanding(b *strings.Builder, e domain.Entity) {
	fmt.Fprintf(b, "- Sanctions status: %s\n", e.SanctionsStatus)
	fmt.Fprintf(b, "- Risk level: %s\n", riskLabel(e.Risk))
	fmt.Fprintf(b, "- Score: %s\n", scoreLabel(e.Score))
}

// writeTable writes a section titled with its count of items: a table of a
// row per item (row gives its cells, joined by " | "), or empty when there
// are none.
func writeTable[T any](b *strings.Builder, title, empty string, items []T, columns []string, row func(T) string) {
	fmt.Fprintf(b, "\n## %s (%d)\n\n", title, len(items))
	if len(items) == 0 {
		b.WriteString(empty + "\n")
		return
	}
	fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(columns, " | "), strings.Repeat("---|", len(columns)))
	for _, it := range items {
		fmt.Fprintf(b, "| %s |\n", row(it))
	}
}

func writeScoreBreakdown(b *strings.Builder, s *domain.Score) {
	b.WriteString("\n## Score breakdown\n\n")
	if s == nil {
		b.WriteString("Not scored yet.\n")
		return
	}
	if len(s.Breakdown) == 0 {
		fmt.Fprintf(b, "Score %d/100, no breakdown recorded.\n", s.Value)
		return
	}
	b.WriteString("| Component | Points | Max |\n|---|---|---|\n")
	for _, c := range s.Breakdown {
		fmt.Fprintf(b, "| %s | %d | %d |\n", mdCell(c.Label), c.Points, c.Max)
	}
	fmt.Fprintf(b, "| **Total** | **%d** | 100 |\n", s.Value)
}

func riskLabel(r *domain.RiskAssessment) string {
	if r == nil {
		return "Not assessed"
	}
	return fmt.Sprintf("%s (assessed %s)", r.Level, domain.FormatTime(r.AssessedAt))
}

func scoreLabel(s *domain.Score) string {
	if s == nil {
		return "Not scored"
	}
	return fmt.Sprintf("%d/100", s.Value)
}

func countryLabel(e domain.Entity, countries *country.Catalogue) string {
	if c, ok := countries.ByNumeric(e.CountryID); ok {
		return fmt.Sprintf("%s (%s, id %d)", mdText(c.Name, c.Alpha2), c.Alpha2, c.Numeric)
	}
	return fmt.Sprintf("%s (id %d)", mdText(e.CountryCode, "unknown"), e.CountryID)
}

func optTimeLabel(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return domain.FormatTime(*t)
}

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "#", `\#`, "|", `\|`, "\r", " ", "\n", " ",
)

// mdText escapes text from records (names come from callers and providers)
// so that it cannot change the document's structure.
func mdText(s, empty string) string {
	if strings.TrimSpace(s) == "" {
		return empty
	}
	return mdEscaper.Replace(s)
}

func mdOpt(s *string) string {
	if s == nil {
		return "—"
	}
	return mdText(*s, "—")
}

func mdCell(s string) string { return mdText(s, "—") }
