package devstacktest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// StreamImage turns an item as the SDK reads it into the form a DynamoDB
// stream record carries in aws-lambda-go: through the stream's JSON.
func StreamImage(t testing.TB, item map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	t.Helper()
	b, err := json.Marshal(streamJSONMap(item))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]events.DynamoDBAttributeValue
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode stream image %s: %v", b, err)
	}
	return out
}

func streamJSONMap(item map[string]types.AttributeValue) map[string]any {
	out := make(map[string]any, len(item))
	for k, v := range item {
		out[k] = streamJSON(v)
	}
	return out
}

func streamJSON(av types.AttributeValue) any {
	b64 := base64.StdEncoding.EncodeToString
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": b64(v.Value)}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberBS:
		var l []string
		for _, x := range v.Value {
			l = append(l, b64(x))
		}
		return map[string]any{"BS": l}
	case *types.AttributeValueMemberL:
		l := []any{}
		for _, x := range v.Value {
			l = append(l, streamJSON(x))
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": streamJSONMap(v.Value)}
	}
	panic(fmt.Sprintf("attribute type %T", av))
}
