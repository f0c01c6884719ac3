// Package auditexport copies what the service must be able to prove into
// the records bucket, under S3 Object Lock in compliance mode, where no
// principal — our own roles and the account's root included — can delete or
// overwrite it before its date: every audit record as it was hashed, and
// every provider's answer (evidence body), each locked at its write to the
// date the law already asks of it (keeping.go). The audit and evidence
// tables' streams feed it within a minute of each commit (HandleStream); a
// closure record, once locked and believed, locks its trail to its end
// (closed.go); a daily run (RunDaily) catches up on what the streams
// missed in every chain that moved (its records, and its entity's
// evidence), renews what is still needed as its lock nears its end
// (renew.go) and writes each account's manifest. ExtendLocks is the one-off
// run that dates the copies locked before.
//
// Where each object goes is shared/recordslayout; checking DynamoDB against
// the locked copies, and a trail from the bucket alone, is shared/verify.
package auditexport
