// Package metrics writes CloudWatch metrics as Embedded Metric Format log
// lines: Lambda's log stream carries them to CloudWatch, which extracts the
// metrics, with no API call (and no latency) on the function's path.
package metrics

import (
	"encoding/json"
	"io"
	"sort"
	"sync"

	"github.com/evs-kyb/evs/shared/domain"
)

// Namespace is the service's CloudWatch namespace.
const Namespace = "EVS"

// Metric names the alarms and dashboard use.
const (
	DeliveriesDelivered = "WebhookDeliveriesDelivered"
	DeliveriesFailed    = "WebhookDeliveriesFailed"
	DeliveryDuration    = "WebhookDeliveryDuration"
)

// Units.
const (
	Count        = "Count"
	Milliseconds = "Milliseconds"
)

// Writer writes metric lines, one JSON object per line, safely from
// several goroutines.
type Writer struct {
	mu    sync.Mutex
	out   io.Writer
	clock domain.Clock
}

// New writes to out (os.Stdout in a Lambda), stamping lines by clock.
func New(out io.Writer, clock domain.Clock) *Writer { return &Writer{out: out, clock: clock} }

// Value is one metric value.
type Value struct {
	Name  string
	Unit  string
	Value float64
}

// Put writes values under the namespace, with no dimensions, and props as
// searchable properties of the line (a delivery id, say).
func (w *Writer) Put(props map[string]any, values ...Value) {
	if w == nil || w.out == nil || len(values) == 0 {
		return
	}
	line := map[string]any{}
	for k, v := range props {
		line[k] = v
	}
	defs := make([]map[string]string, 0, len(values))
	for _, v := range values {
		line[v.Name] = v.Value
		defs = append(defs, map[string]string{"Name": v.Name, "Unit": v.Unit})
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i]["Name"] < defs[j]["Name"] })
	line["_aws"] = map[string]any{
		"Timestamp": w.clock.Now().UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{
			"Namespace": Namespace, "Dimensions": [][]string{{}}, "Metrics": defs,
		}},
	}
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Write(append(b, '\n'))
}
