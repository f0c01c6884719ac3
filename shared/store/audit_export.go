package store

// auditExportItem is one chain's head as a daily export recorded it before
// the records bucket (shared/auditexport) took over: the table is kept for
// those exports, read by AuditChain, and no function writes it any more.
type auditExportItem struct {
	AccountID    int64  `dynamo:"account_id,hash"`
	ExportKey    string `dynamo:"export_key,range"` // exportPrefix(entity) + day
	EntityID     int64  `dynamo:"entity_id"`
	Day          string `dynamo:"day"`
	Seq          int64  `dynamo:"seq"`
	Hash         string `dynamo:"hash"`
	LastActionID string `dynamo:"last_action_id"`
	ExportedAt   string `dynamo:"exported_at"`
}
