package store

import "fmt"

// accountKey is the value of a key attribute that schema.AccountScoped
// names: the account id, then part. A query on one reaches no other
// account's items, and an account's items spread over as many partition
// keys as it has parts.
func accountKey(accountID int64, part any) string {
	return fmt.Sprintf("%d#%v", accountID, part)
}

// entityKey partitions the indexes listing one entity's items.
func entityKey(accountID, entityID int64) string { return accountKey(accountID, entityID) }
