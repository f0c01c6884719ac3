package settings

import (
	"html/template"
	"slices"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// pageNames are the templates/<name>.html files.
func pageNames() []string {
	return []string{"endpoints", "endpoint", "endpoint_form", "endpoint_delete", "secret",
		"deliveries", "delivery", "countries"}
}

// funcs are the settings area's template functions.
func funcs() template.FuncMap {
	return template.FuncMap{
		"when":     when,
		"whenp":    func(t *time.Time) string { return when(domain.Deref(t)) },
		"iso":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"hasEvent": slices.Contains[[]domain.EventType, domain.EventType],
		"tone":     tone,
		"rowsAt": func(base string, rows []domain.Delivery) deliveryRows {
			return deliveryRows{Base: base, Rows: rows}
		},
	}
}

// deliveryRows is the table of deliveries two pages share.
type deliveryRows struct {
	Base string
	Rows []domain.Delivery
}

// when is a time as pages show it.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// tone is the CSS class of a delivery's status: good, bad, or waiting for
// any other.
func tone(s domain.DeliveryStatus) string {
	if t, ok := map[domain.DeliveryStatus]string{domain.DeliveryDelivered: "good", domain.DeliveryFailed: "bad"}[s]; ok {
		return t
	}
	return "wait"
}
