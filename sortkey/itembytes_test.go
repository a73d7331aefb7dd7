package sortkey_test

import (
	"reflect"
	"testing"

	"github.com/quiverdb/quiver/sortkey"
)

// TestItemBytes checks the constant every caller accounts a sort's items
// and scratch with against the size of an Item.
func TestItemBytes(t *testing.T) {
	if got := reflect.TypeFor[sortkey.Item]().Size(); got != sortkey.ItemBytes {
		t.Fatalf("an Item is %d bytes, ItemBytes says %d", got, sortkey.ItemBytes)
	}
}
