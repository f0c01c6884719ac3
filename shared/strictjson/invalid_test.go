package strictjson

import (
	"errors"
	"reflect"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestDocInvalidNamesTheFieldWithoutPatchingMessages(t *testing.T) {
	command := Doc{Of: "account.update", Whole: "command"}
	tests := []struct {
		name string
		d    Doc
		doc  string
		want map[string][]string
	}{
		{"an unknown key is not a field of the command", command, `{"colour":"red"}`,
			map[string][]string{"colour": {"is not a field of account.update"}}},
		{"a key in another case names the exact one after the command", command, `{"Command":"x"}`,
			map[string][]string{"Command": {`is not a field of account.update (keys are case-sensitive: "command" is)`}}},
		{"without a name, a key is just not a field", Doc{Whole: "command"}, `{"colour":"red"}`,
			map[string][]string{"colour": {"is not a field"}}},
		{"a nested key is named by its whole path", command, `{"items":[{"code":"SA","colour":"red"}]}`,
			map[string][]string{"items[0].colour": {"is not a field of account.update"}}},
		{"a problem other than a key keeps its own words", command, `{"account_id":0}`,
			map[string][]string{"account_id": {"must be a positive id"}}},
		{"a refusal of the whole document is the Whole field's", command, `{"command":"x"} 1`,
			map[string][]string{"command": {"the document has data after its value"}}},
		{"a document at a path names its fields under it", Doc{Of: "a decision", Whole: "request", At: "approval"}, `{"operator_id":4}`,
			map[string][]string{"approval.operator_id": {"is not a field of a decision"}}},
		{"a refusal of a whole document at a path is the path's", Doc{Of: "a decision", Whole: "request", At: "approval"}, `[]`,
			map[string][]string{"approval": {"must be an object"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v doc
			err := tt.d.Invalid(Decode([]byte(tt.doc), &v))
			if domain.ErrorCode(err) != domain.ECodeInvalid || !reflect.DeepEqual(domain.ErrorFields(err), tt.want) {
				t.Errorf("Invalid(%s) = %v %v, want %v", tt.doc, err, domain.ErrorFields(err), tt.want)
			}
		})
	}
}

func TestDocInvalidPassesOtherErrorsThrough(t *testing.T) {
	other := errors.New("not a refusal")
	if got := (Doc{Whole: "command"}).Invalid(other); got != other {
		t.Errorf("Invalid(other) = %v, want it as it was", got)
	}
	if got := (Doc{Whole: "command"}).Invalid(nil); got != nil {
		t.Errorf("Invalid(nil) = %v, want nil", got)
	}
}
