package tpch

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Table names.
const (
	RegionTable   = "region"
	NationTable   = "nation"
	PartTable     = "part"
	SupplierTable = "supplier"
	PartsuppTable = "partsupp"
	CustomerTable = "customer"
	OrdersTable   = "orders"
	LineitemTable = "lineitem"
)

// Tables lists the tables this package generates, smallest first.
var Tables = []string{RegionTable, NationTable, PartTable, SupplierTable, PartsuppTable, CustomerTable, OrdersTable, LineitemTable}

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

// RegionSchema is region as TPC-H 1.4 defines it; every column is NOT
// NULL, as in every table here.
var RegionSchema = arrow.NewSchema([]arrow.Field{
	field("r_regionkey", arrow.PrimitiveTypes.Int64),
	field("r_name", arrow.BinaryTypes.String),
	field("r_comment", arrow.BinaryTypes.String),
}, nil)

// NationSchema is nation.
var NationSchema = arrow.NewSchema([]arrow.Field{
	field("n_nationkey", arrow.PrimitiveTypes.Int64),
	field("n_name", arrow.BinaryTypes.String),
	field("n_regionkey", arrow.PrimitiveTypes.Int64),
	field("n_comment", arrow.BinaryTypes.String),
}, nil)

// PartSchema is part.
var PartSchema = arrow.NewSchema([]arrow.Field{
	field("p_partkey", arrow.PrimitiveTypes.Int64),
	field("p_name", arrow.BinaryTypes.String),
	field("p_mfgr", arrow.BinaryTypes.String),
	field("p_brand", arrow.BinaryTypes.String),
	field("p_type", arrow.BinaryTypes.String),
	field("p_size", arrow.PrimitiveTypes.Int32),
	field("p_container", arrow.BinaryTypes.String),
	field("p_retailprice", money),
	field("p_comment", arrow.BinaryTypes.String),
}, nil)

// SupplierSchema is supplier.
var SupplierSchema = arrow.NewSchema([]arrow.Field{
	field("s_suppkey", arrow.PrimitiveTypes.Int64),
	field("s_name", arrow.BinaryTypes.String),
	field("s_address", arrow.BinaryTypes.String),
	field("s_nationkey", arrow.PrimitiveTypes.Int64),
	field("s_phone", arrow.BinaryTypes.String),
	field("s_acctbal", money),
	field("s_comment", arrow.BinaryTypes.String),
}, nil)

// PartsuppSchema is partsupp.
var PartsuppSchema = arrow.NewSchema([]arrow.Field{
	field("ps_partkey", arrow.PrimitiveTypes.Int64),
	field("ps_suppkey", arrow.PrimitiveTypes.Int64),
	field("ps_availqty", arrow.PrimitiveTypes.Int32),
	field("ps_supplycost", money),
	field("ps_comment", arrow.BinaryTypes.String),
}, nil)

// CustomerSchema is customer.
var CustomerSchema = arrow.NewSchema([]arrow.Field{
	field("c_custkey", arrow.PrimitiveTypes.Int64),
	field("c_name", arrow.BinaryTypes.String),
	field("c_address", arrow.BinaryTypes.String),
	field("c_nationkey", arrow.PrimitiveTypes.Int64),
	field("c_phone", arrow.BinaryTypes.String),
	field("c_acctbal", money),
	field("c_mktsegment", arrow.BinaryTypes.String),
	field("c_comment", arrow.BinaryTypes.String),
}, nil)

// Schema returns the schema of table.
func Schema(table string) (*arrow.Schema, error) {
	switch table {
	case RegionTable:
		return RegionSchema, nil
	case NationTable:
		return NationSchema, nil
	case PartTable:
		return PartSchema, nil
	case SupplierTable:
		return SupplierSchema, nil
	case PartsuppTable:
		return PartsuppSchema, nil
	case CustomerTable:
		return CustomerSchema, nil
	case LineitemTable:
		return LineitemSchema, nil
	case OrdersTable:
		return OrdersSchema, nil
	}
	return nil, fmt.Errorf("tpch: unknown table %q (have %s)", table, strings.Join(Tables, ", "))
}
