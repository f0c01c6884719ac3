package store_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// itemSize is an item's size by DynamoDB's rules: each attribute's name
// and value; a number takes about one byte per two significant digits
// plus one; a map or list 3 bytes plus one per element
// (docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

func numberSize(s string) int {
	f, _, err := big.ParseFloat(s, 10, 128, big.ToNearestEven)
	if err != nil {
		return len(s)
	}
	digits := strings.Trim(strings.ReplaceAll(strings.TrimLeft(f.Text('f', -1), "-"), ".", ""), "0")
	return (len(digits)+1)/2 + 1
}

// indexEntrySize is the size of an item's entry in a global index: the
// index's and the table's keys, what it projects, and 100 bytes of
// overhead; an item without the index's keys has no entry.
func indexEntrySize(tb schema.Table, ix schema.Index, item map[string]types.AttributeValue) int {
	if item[ix.PartitionKey.Name] == nil || (ix.SortKey.Name != "" && item[ix.SortKey.Name] == nil) {
		return 0
	}
	keep := map[string]bool{ix.PartitionKey.Name: true, ix.SortKey.Name: true, tb.PartitionKey.Name: true}
	if tb.SortKey != nil {
		keep[tb.SortKey.Name] = true
	}
	for _, a := range ix.NonKeyAttrs {
		keep[a] = true
	}
	n := 100
	for name, v := range item {
		if ix.Projection == schema.ProjectAll || keep[name] {
			n += len(name) + valueSize(v)
		}
	}
	return n
}

// TestBytesPerEntity measures what one entity stores, table by table and
// index by index, as a create writes it (two intake checks, one review, the
// registration guard): the figures the README's capacity section uses. No
// table has a local index (TestNoLocalIndexes), so none of it counts
// against an item collection's 10 GB; the test pins that an entity stays
// small enough for storage to be the only thing that grows with it.
func TestBytesPerEntity(t *testing.T) {
	ctx := context.Background()
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	st := store.New(db, names)
	acct := newAccount(t, st, "SA")
	created, err := st.CreateEntity(ctx, withChildren(sampleEntity(acct, "SA", "7001234567", t0)))
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprint(created.Entity.ID)
	mine := func(tableID string, item map[string]types.AttributeValue) bool {
		switch tableID {
		case schema.Accounts:
			sk, _ := item["sk"].(*types.AttributeValueMemberS)
			return sk != nil && strings.HasPrefix(sk.Value, "REG#")
		default:
			n, _ := item["entity_id"].(*types.AttributeValueMemberN)
			return n != nil && n.Value == id
		}
	}
	total := 0
	var report []string
	for _, tableID := range []string{schema.Entities, schema.Checks, schema.Reviews, schema.Accounts} {
		tb, _ := schema.Lookup(tableID)
		out, err := db.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(names[tableID])})
		if err != nil {
			t.Fatal(err)
		}
		items, bytes, indexBytes := 0, 0, 0
		for _, item := range out.Items {
			if !mine(tableID, item) {
				continue
			}
			items++
			bytes += itemSize(item)
			for _, ix := range tb.Indexes {
				indexBytes += indexEntrySize(tb, ix, item)
			}
		}
		total += bytes + indexBytes
		report = append(report, fmt.Sprintf("%s: %d items, %d B + %d B in indexes", tableID, items, bytes, indexBytes))
	}
	t.Logf("one entity stores %d B: %s", total, strings.Join(report, "; "))
	// A regression that projects whole items into an index again, or
	// balloons the items, shows here.
	if total > 4096 {
		t.Errorf("one entity stores %d B, want at most 4 KB", total)
	}
}
