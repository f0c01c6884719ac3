package auditexport_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/domain"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// evidenceRecord is the evidence table's stream record of an inline body,
// as Lambda delivers it.
func evidenceRecord(seq string, e domain.Evidence) events.DynamoDBEventRecord {
	num := func(n int64) events.DynamoDBAttributeValue {
		return events.NewNumberAttribute(strconv.FormatInt(n, 10))
	}
	return events.DynamoDBEventRecord{EventID: "ev-" + seq, EventName: "INSERT", Change: events.DynamoDBStreamRecord{
		SequenceNumber: seq,
		NewImage: map[string]events.DynamoDBAttributeValue{
			"account_id": num(e.AccountID), "check_id": num(e.CheckID), "provider": events.NewStringAttribute(e.Provider),
			"method": events.NewStringAttribute("GET"), "url": events.NewStringAttribute("https://yente.example/match"),
			"received_at": events.NewStringAttribute("2026-11-26T09:00:00Z"), "http_status": num(200),
			"sha256": events.NewStringAttribute(e.SHA256), "size": num(int64(len(e.Body))), "body": events.NewBinaryAttribute(e.Body),
			"expires_at": num(0),
		},
	}}
}
