package tpcds

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Money is TPC-DS's decimal(7,2), the type of every price, cost and amount.
var Money = &arrow.Decimal128Type{Precision: 7, Scale: 2}

// The columns of catalog_sales, in the specification's order; the values
// are their indices in CatalogSalesSchema.
const (
	ColSoldDateSK = iota
	ColSoldTimeSK
	ColShipDateSK
	ColBillCustomerSK
	ColBillCdemoSK
	ColBillHdemoSK
	ColBillAddrSK
	ColShipCustomerSK
	ColShipCdemoSK
	ColShipHdemoSK
	ColShipAddrSK
	ColCallCenterSK
	ColCatalogPageSK
	ColShipModeSK
	ColWarehouseSK
	ColItemSK
	ColPromoSK
	ColOrderNumber
	ColQuantity
	ColWholesaleCost
	ColListPrice
	ColSalesPrice
	ColExtDiscountAmt
	ColExtSalesPrice
	ColExtWholesaleCost
	ColExtListPrice
	ColExtTax
	ColCouponAmt
	ColExtShipCost
	ColNetPaid
	ColNetPaidIncTax
	ColNetPaidIncShip
	ColNetPaidIncShipTax
	ColNetProfit
	NumColumns
)

// Column groups by Arrow type: surrogate keys and the quantity are int32,
// the order number int64, the rest Money. Spark's TPC-DS schema, the one
// Kyuubi's benchmark read, types them the same way, so a batch here has
// the bytes per row its Arrow batches had (see NumericColumns).
const (
	lastInt32Key = ColPromoSK // columns 0 .. ColPromoSK are int32 keys
	firstMoney   = ColWholesaleCost
)

var columnNames = [NumColumns]string{
	"cs_sold_date_sk", "cs_sold_time_sk", "cs_ship_date_sk",
	"cs_bill_customer_sk", "cs_bill_cdemo_sk", "cs_bill_hdemo_sk", "cs_bill_addr_sk",
	"cs_ship_customer_sk", "cs_ship_cdemo_sk", "cs_ship_hdemo_sk", "cs_ship_addr_sk",
	"cs_call_center_sk", "cs_catalog_page_sk", "cs_ship_mode_sk", "cs_warehouse_sk",
	"cs_item_sk", "cs_promo_sk", "cs_order_number", "cs_quantity",
	"cs_wholesale_cost", "cs_list_price", "cs_sales_price", "cs_ext_discount_amt",
	"cs_ext_sales_price", "cs_ext_wholesale_cost", "cs_ext_list_price", "cs_ext_tax",
	"cs_coupon_amt", "cs_ext_ship_cost", "cs_net_paid", "cs_net_paid_inc_tax",
	"cs_net_paid_inc_ship", "cs_net_paid_inc_ship_tax", "cs_net_profit",
}

// columnType returns the Arrow type of column c.
func columnType(c int) arrow.DataType {
	switch {
	case c == ColOrderNumber:
		return arrow.PrimitiveTypes.Int64
	case c <= lastInt32Key || c == ColQuantity:
		return arrow.PrimitiveTypes.Int32
	default:
		return Money
	}
}

// notNull reports the columns the specification declares NOT NULL: the
// primary key (cs_item_sk, cs_order_number).
func notNull(c int) bool { return c == ColItemSK || c == ColOrderNumber }

// CatalogSalesSchema is TPC-DS catalog_sales (specification 2.x, §2.3):
// 34 columns, every one nullable but the primary key.
var CatalogSalesSchema = func() *arrow.Schema {
	fs := make([]arrow.Field, NumColumns)
	for c := range fs {
		fs[c] = arrow.Field{Name: columnNames[c], Type: columnType(c), Nullable: !notNull(c)}
	}
	return arrow.NewSchema(fs, nil)
}()

// NumericColumns is the 8-column projection this package stands in for
// Kyuubi's cs_numeric case (anchors.md §5.2), by column index.
//
// Kyuubi does not name its 8 columns. Its byte count does constrain them:
// 1,167,279,640 bytes uncompressed for SF10's 14,401,261 rows is 81.05
// bytes a row, which is four 4-byte columns and four 16-byte decimal(7,2)
// columns plus eight validity bitmaps (4·4 + 4·16 + 8/8 = 81). So we take
// four int32 columns (the sale date, the item, the billing customer and
// the quantity) and four money columns (wholesale cost, list price, sales
// price, net profit): a sorted key, two uniform keys, a small integer, and
// four prices with dsdgen's correlations between them.
var NumericColumns = []int{
	ColSoldDateSK, ColItemSK, ColBillCustomerSK, ColQuantity,
	ColWholesaleCost, ColListPrice, ColSalesPrice, ColNetProfit,
}

// NumericSchema is CatalogSalesSchema projected to NumericColumns.
var NumericSchema = project(CatalogSalesSchema, NumericColumns)

func project(s *arrow.Schema, cols []int) *arrow.Schema {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fs[i] = s.Field(c)
	}
	return arrow.NewSchema(fs, nil)
}

// ColumnIndex returns the index of the catalog_sales column named name.
func ColumnIndex(name string) (int, error) {
	for c, n := range columnNames {
		if n == name {
			return c, nil
		}
	}
	return 0, fmt.Errorf("tpcds: catalog_sales has no column %q", name)
}
