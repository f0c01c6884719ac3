// Package tabledump writes a DynamoDB table's items in the format of
// DynamoDB's own export to S3 (DYNAMODB_JSON: one {"Item": {...}} per line,
// each attribute typed as the low-level API types it) and reads them back
// into a table: the shape a point-in-time export and an import from S3
// take, rehearsed locally where DynamoDB Local has neither
// (infra/README.md, restoring the tables).
package tabledump

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// line is one exported item.
type line struct {
	Item map[string]json.RawMessage `json:"Item"`
}

// encode is an attribute value as DynamoDB JSON ({"S": "..."}, {"N": "1"}, …).
func encode(av types.AttributeValue) (any, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}, nil
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}, nil
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}, nil
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}, nil
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}, nil
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}, nil
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}, nil
	case *types.AttributeValueMemberBS:
		out := make([]string, len(v.Value))
		for i, b := range v.Value {
			out[i] = base64.StdEncoding.EncodeToString(b)
		}
		return map[string]any{"BS": out}, nil
	case *types.AttributeValueMemberL:
		out := make([]any, len(v.Value))
		for i, e := range v.Value {
			var err error
			if out[i], err = encode(e); err != nil {
				return nil, err
			}
		}
		return map[string]any{"L": out}, nil
	case *types.AttributeValueMemberM:
		out, err := encodeMap(v.Value)
		return map[string]any{"M": out}, err
	}
	return nil, fmt.Errorf("tabledump: attribute value of type %T", av)
}

func encodeMap(item map[string]types.AttributeValue) (map[string]any, error) {
	out := make(map[string]any, len(item))
	for k, v := range item {
		e, err := encode(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = e
	}
	return out, nil
}

// typed is a DynamoDB JSON value: exactly one of its fields is set.
type typed struct {
	S    *string                    `json:"S"`
	N    *string                    `json:"N"`
	B    *string                    `json:"B"`
	BOOL *bool                      `json:"BOOL"`
	NULL *bool                      `json:"NULL"`
	SS   []string                   `json:"SS"`
	NS   []string                   `json:"NS"`
	BS   []string                   `json:"BS"`
	L    []json.RawMessage          `json:"L"`
	M    map[string]json.RawMessage `json:"M"`
}

// decode reads a DynamoDB JSON value.
func decode(raw json.RawMessage) (types.AttributeValue, error) {
	var t typed
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	switch {
	case t.S != nil:
		return &types.AttributeValueMemberS{Value: *t.S}, nil
	case t.N != nil:
		return &types.AttributeValueMemberN{Value: *t.N}, nil
	case t.B != nil:
		b, err := base64.StdEncoding.DecodeString(*t.B)
		return &types.AttributeValueMemberB{Value: b}, err
	case t.BOOL != nil:
		return &types.AttributeValueMemberBOOL{Value: *t.BOOL}, nil
	case t.NULL != nil:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case t.SS != nil:
		return &types.AttributeValueMemberSS{Value: t.SS}, nil
	case t.NS != nil:
		return &types.AttributeValueMemberNS{Value: t.NS}, nil
	case t.BS != nil:
		out := make([][]byte, len(t.BS))
		for i, s := range t.BS {
			var err error
			if out[i], err = base64.StdEncoding.DecodeString(s); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberBS{Value: out}, nil
	case t.L != nil:
		out := make([]types.AttributeValue, len(t.L))
		for i, e := range t.L {
			var err error
			if out[i], err = decode(e); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case t.M != nil:
		out, err := decodeMap(t.M)
		return &types.AttributeValueMemberM{Value: out}, err
	}
	return nil, fmt.Errorf("tabledump: no type in %s", raw)
}

func decodeMap(m map[string]json.RawMessage) (map[string]types.AttributeValue, error) {
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		av, err := decode(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}
