package tabledump

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Every attribute type survives a dump line and its reading, byte for
// byte; a line with no type is refused.
func TestEveryAttributeTypeRoundTrips(t *testing.T) {
	for name, av := range map[string]types.AttributeValue{
		"S":    &types.AttributeValueMemberS{Value: "ACME — شركة"},
		"N":    &types.AttributeValueMemberN{Value: "7000000001"},
		"B":    &types.AttributeValueMemberB{Value: []byte{0, 1, 254, 255}},
		"BOOL": &types.AttributeValueMemberBOOL{Value: true},
		"NULL": &types.AttributeValueMemberNULL{Value: true},
		"SS":   &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"NS":   &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"BS":   &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"L":    &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}, &types.AttributeValueMemberN{Value: "1"}}},
		"M": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"s": &types.AttributeValueMemberS{Value: ""}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			e, err := encode(av)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			back, err := decode(raw)
			if err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			if !reflect.DeepEqual(back, av) {
				t.Errorf("%s: read back as %#v", raw, back)
			}
		})
	}
	if _, err := decode(json.RawMessage(`{"X":"1"}`)); err == nil {
		t.Error("a value of no known type is read")
	}
}
