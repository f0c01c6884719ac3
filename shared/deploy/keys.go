package deploy

// The records bucket's key outlives its administrators: whoever holds
// kms:* through the account's IAM (the key policy's root statement) could
// otherwise schedule its deletion or disable it, and every locked copy
// would be unreadable for good, or lift that refusal by rewriting the key
// policy, or hand its use to anyone with a grant. Its policy denies these
// to every principal but one named role, which no function assumes: the
// break-glass role, held apart, whose every use CloudTrail records.

// KeyGuardedActions are what only the break-glass role may do with a
// bucket's own key (Bucket.OwnKey, and the records' replica's): delete,
// disable, re-police or grant it, and move or remove an alias from it (the
// records bucket's replication names the replica's key by its alias, and
// repointing an alias takes this on the key it leaves).
func KeyGuardedActions() []string {
	return []string{"kms:ScheduleKeyDeletion", "kms:DisableKey", "kms:PutKeyPolicy", "kms:CreateGrant", "kms:UpdateAlias", "kms:DeleteAlias"}
}

// StackParameter is a value of one deployment that no function reads: a
// CDK context value and a template.yaml parameter, both named Parameter.
type StackParameter struct {
	Parameter string
	Default   string
	// Pattern is what a value must match (a template's AllowedPattern).
	Pattern     string
	Description string
}

// BreakGlassRole names the IAM role, in the stack's account, that alone may
// do KeyGuardedActions with the records bucket's key. The role need not
// exist: until someone creates it under that name, no one may.
func BreakGlassRole() StackParameter {
	return StackParameter{Parameter: "RecordsKeyBreakGlassRole", Default: "evs-records-break-glass", Pattern: `^[A-Za-z0-9+=,.@_-]{1,64}$`,
		Description: "Name of the IAM role (in this account, no path) that alone may schedule the deletion of the records bucket's key, " +
			"disable it, change its policy or create grants on it (infra/README.md, break-glass)."}
}

// RecordsReplicaRegion names the second region that holds a replica of the
// records bucket under the same Object Lock (infra/README.md, records that
// survive a region). Empty: no replica, the records in one region only.
func RecordsReplicaRegion() StackParameter {
	return StackParameter{Parameter: "RecordsReplicaRegion", Default: "", Pattern: `^([a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9])?$`,
		Description: "The second region holding a replica of the records bucket (same Object Lock, a key of its own), " +
			"whose stack evs-<stage>-records-replica is deployed there first (the replica bucket's name, " +
			"evs-<stage>-records-replica-<account>-<region>, must fit in 63 characters); empty: no replica."}
}
