package api

import (
	"context"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

// The create body is read by the same strict reading as every operator-side
// document (strictjson.Check): a key named twice in any object is a 400
// naming it, before anything is read; unknown keys stay ignored.
func TestCreateBodyRefusesRepeatedKeys(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"entity": {"registration_number": "1", "registration_number": "7000000000"}}`, `"registration_number" twice`},
		{`{"entity": {}, "entity": {"registration_number": "7000000000"}}`, `"entity" twice`},
		{`{"entity": {"a": [{"x": 1, "x": 2}]}}`, `"x" twice`},
	}
	c := CreateEntity{} // no store: a refusal here reads nothing
	for _, tt := range tests {
		_, err := c.parse(context.Background(), 1, []byte(tt.body))
		if domain.ErrorCode(err) != domain.ECodeBadRequest || !strings.Contains(domain.ErrorMessage(err), tt.want) {
			t.Errorf("parse(%s) = %v, want bad_request saying %s", tt.body, err, tt.want)
		}
	}
}
