package store

import "github.com/evs-kyb/evs/shared/domain"

// intakeCheckItem is one check of a country configuration's intake_checks,
// as stored.
type intakeCheckItem struct {
	Type        string `dynamo:"check_type"`
	ProviderKey string `dynamo:"provider_key"`
	TimeoutMS   int    `dynamo:"timeout_ms"`
}

// intakeCheckItems keeps nil apart from empty, as the list was stored
// before it had an item type of its own.
func intakeCheckItems(cs []domain.IntakeCheck) []intakeCheckItem {
	if cs == nil {
		return nil
	}
	out := make([]intakeCheckItem, len(cs))
	for i, c := range cs {
		out[i] = intakeCheckItem{Type: string(c.Type), ProviderKey: c.ProviderKey, TimeoutMS: c.TimeoutMS}
	}
	return out
}

func intakeChecks(its []intakeCheckItem) []domain.IntakeCheck {
	if its == nil {
		return nil
	}
	out := make([]domain.IntakeCheck, len(its))
	for i, it := range its {
		out[i] = domain.IntakeCheck{Type: domain.CheckType(it.Type), ProviderKey: it.ProviderKey, TimeoutMS: it.TimeoutMS}
	}
	return out
}
