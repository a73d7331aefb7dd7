package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// SHOW TABLES and DESCRIBE t (DESC t, SHOW COLUMNS FROM t) are queries
// over information_schema (infoschema.go), planned from their SQL:
//
//	SHOW TABLES  name: each table and view, by name
//	DESCRIBE t   column_name, column_type, null ('YES'/'NO'), in order

// showText returns the query a SHOW or DESCRIBE statement stands for;
// ok is false for any other statement.
func (e *Engine) showText(stmt ast.StmtNode) (string, bool, error) {
	if ex, isExplain := stmt.(*ast.ExplainStmt); isExplain {
		stmt = ex.Stmt
	}
	sh, isShow := stmt.(*ast.ShowStmt)
	if !isShow {
		return "", false, nil
	}
	switch sh.Tp {
	case ast.ShowTables:
		if sh.Full || sh.Pattern != nil || sh.Where != nil {
			return "", true, &Error{Kind: ErrUnsupported, Msg: "SHOW TABLES with FULL, LIKE or WHERE (query information_schema.tables)"}
		}
		if sh.DBName != "" && !strings.EqualFold(sh.DBName, SchemaName) {
			return "", true, &Error{Kind: ErrNoTable, Msg: "no schema " + sh.DBName}
		}
		return "SELECT table_name AS name FROM information_schema.tables ORDER BY table_name", true, nil
	case ast.ShowColumns:
		if sh.Table == nil || sh.Full || sh.Pattern != nil || sh.Where != nil {
			return "", true, &Error{Kind: ErrUnsupported, Msg: "SHOW COLUMNS with FULL, LIKE or WHERE (query information_schema.columns)"}
		}
		tn := sh.Table
		if tn.Schema.O != "" && !strings.EqualFold(tn.Schema.O, SchemaName) {
			return "", true, &Error{Kind: ErrNoTable, Msg: "no schema " + tn.Schema.O}
		}
		name, ok := e.c.Resolve(tn.Name.O)
		if !ok {
			v := e.views.get(tn.Name.O)
			if v == nil {
				return "", true, &Error{Kind: ErrNoTable, Msg: quoteString(tn.Name.O)}
			}
			name = v.name
		}
		return "SELECT column_name, data_type AS column_type, is_nullable AS \"null\" FROM information_schema.columns WHERE table_name = " +
			quoteString(name) + " ORDER BY ordinal_position", true, nil
	}
	return "", true, &Error{Kind: ErrUnsupported, Msg: "this SHOW statement (quiver answers SHOW TABLES and DESCRIBE t; information_schema has the rest)"}
}

// quoteString writes s as an SQL string literal.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
