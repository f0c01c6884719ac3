package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// fixEmptyMaps is a GetRecords option working around DynamoDB Local 3.1,
// which writes an empty map attribute in a stream image as {} rather than
// {"M":{}}. The SDK does not reject that: it decodes it as the value of
// another attribute of the same map, so an image would arrive silently
// wrong. This rewrites the response before the SDK reads it. Against real
// DynamoDB, which never sends {} as a value, it changes nothing.
func fixEmptyMaps(o *dynamodbstreams.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		// Added last in the deserialize step, it is the innermost handler:
		// it sees the raw response before the operation's deserializer.
		return s.Deserialize.Add(middleware.DeserializeMiddlewareFunc("LocalFixEmptyMaps", fixEmptyMapsMiddleware), middleware.After)
	})
}

func fixEmptyMapsMiddleware(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if err != nil || !ok || resp.StatusCode != 200 {
		return out, md, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return out, md, err
	}
	if fixed, ok := fixStreamImages(body); ok {
		body = fixed
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return out, md, nil
}

// fixStreamImages rewrites every {} attribute value in the records' keys and
// images as {"M":{}}; ok is false when there was nothing to fix.
func fixStreamImages(body []byte) (fixed []byte, ok bool) {
	if !bytes.Contains(body, []byte("{}")) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // numbers (creation times) go back out as they came
	var doc map[string]any
	if dec.Decode(&doc) != nil {
		return nil, false
	}
	records, _ := doc["Records"].([]any)
	for _, r := range records {
		rec, _ := r.(map[string]any)
		change, _ := rec["dynamodb"].(map[string]any)
		for _, k := range []string{"Keys", "NewImage", "OldImage"} {
			if item, ok := change[k].(map[string]any); ok {
				fixItem(item)
			}
		}
	}
	fixed, err := json.Marshal(doc)
	return fixed, err == nil
}

func fixItem(item map[string]any) {
	for k, v := range item {
		item[k] = fixValue(v)
	}
}

func fixValue(v any) any {
	av, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if len(av) == 0 {
		return map[string]any{"M": map[string]any{}}
	}
	if m, ok := av["M"].(map[string]any); ok {
		fixItem(m)
	}
	if l, ok := av["L"].([]any); ok {
		for i := range l {
			l[i] = fixValue(l[i])
		}
	}
	return av
}
