package tpch

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Table names.
const (
	LineitemTable = "lineitem"
	OrdersTable   = "orders"
)

// Tables lists the tables this package generates.
var Tables = []string{LineitemTable, OrdersTable}

// BatchRows is the rows of every batch but a table's last.
const BatchRows = 8192

var money = &arrow.Decimal128Type{Precision: 15, Scale: 2}

func field(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t}
}

// LineitemSchema is lineitem as TPC-H 1.4 defines it; every column is NOT
// NULL.
var LineitemSchema = arrow.NewSchema([]arrow.Field{
	field("l_orderkey", arrow.PrimitiveTypes.Int64),
	field("l_partkey", arrow.PrimitiveTypes.Int64),
	field("l_suppkey", arrow.PrimitiveTypes.Int64),
	field("l_linenumber", arrow.PrimitiveTypes.Int32),
	field("l_quantity", money),
	field("l_extendedprice", money),
	field("l_discount", money),
	field("l_tax", money),
	field("l_returnflag", arrow.BinaryTypes.String),
	field("l_linestatus", arrow.BinaryTypes.String),
	field("l_shipdate", arrow.FixedWidthTypes.Date32),
	field("l_commitdate", arrow.FixedWidthTypes.Date32),
	field("l_receiptdate", arrow.FixedWidthTypes.Date32),
	field("l_shipinstruct", arrow.BinaryTypes.String),
	field("l_shipmode", arrow.BinaryTypes.String),
	field("l_comment", arrow.BinaryTypes.String),
}, nil)

// OrdersSchema is orders as TPC-H 1.4 defines it; every column is NOT
// NULL.
var OrdersSchema = arrow.NewSchema([]arrow.Field{
	field("o_orderkey", arrow.PrimitiveTypes.Int64),
	field("o_custkey", arrow.PrimitiveTypes.Int64),
	field("o_orderstatus", arrow.BinaryTypes.String),
	field("o_totalprice", money),
	field("o_orderdate", arrow.FixedWidthTypes.Date32),
	field("o_orderpriority", arrow.BinaryTypes.String),
	field("o_clerk", arrow.BinaryTypes.String),
	field("o_shippriority", arrow.PrimitiveTypes.Int32),
	field("o_comment", arrow.BinaryTypes.String),
}, nil)

// Schema returns the schema of table.
func Schema(table string) (*arrow.Schema, error) {
	switch table {
	case LineitemTable:
		return LineitemSchema, nil
	case OrdersTable:
		return OrdersSchema, nil
	}
	return nil, fmt.Errorf("tpch: unknown table %q (have %s)", table, strings.Join(Tables, ", "))
}
