package store

import "github.com/evs-kyb/evs/shared/domain"

// scoreComponentItem is one line of an entity's score_breakdown, as stored.
type scoreComponentItem struct {
	Key    string `dynamo:"key"`
	Label  string `dynamo:"label"`
	Points int    `dynamo:"points"`
	Max    int    `dynamo:"max"`
}

// scoreComponentItems keeps nil apart from empty, as the breakdown was
// stored before it had an item type of its own.
func scoreComponentItems(cs []domain.ScoreComponent) []scoreComponentItem {
	if cs == nil {
		return nil
	}
	out := make([]scoreComponentItem, len(cs))
	for i, c := range cs {
		out[i] = scoreComponentItem(c)
	}
	return out
}

func scoreComponents(its []scoreComponentItem) []domain.ScoreComponent {
	if its == nil {
		return nil
	}
	out := make([]domain.ScoreComponent, len(its))
	for i, it := range its {
		out[i] = domain.ScoreComponent(it)
	}
	return out
}
