// Package slt runs sqllogictest scripts, the test format of SQLite's
// sqllogictest (sqlite.org/sqllogictest), against quiver's SQL engine,
// so that SQLite's public corpus checks the engine's answers.
//
// # Format
//
// A script is records separated by blank lines; lines starting with #
// are comments. The records:
//
//	statement ok|error        the SQL on the following lines must
//	<sql>                     succeed, or fail
//
//	query <types> [nosort|rowsort|valuesort] [label]
//	<sql>
//	----
//	<values, one per line>   or   N values hashing to <md5>
//
//	hash-threshold N          results of more than N values are compared
//	                          by the MD5 of "value\n" for each value
//	halt                      ignore the rest of the script
//
// A statement or query may be preceded by skipif <engine> and onlyif
// <engine> lines; scripts are run as engine "postgresql" (the engine
// whose dialect quiver's is closest to among those the corpus names:
// sqlite, mysql, mssql, oracle, postgresql), so records the corpus marks
// as SQLite- or MySQL-only are skipped by the scripts' own labels.
//
// <types> has a letter per column: I integer, R real, T text. A value is
// rendered as the reference runner renders it: NULL as "NULL", an
// integer column in decimal (a real truncated toward zero), a real with
// three decimals ("%.3f"), text as is, the empty string as "(empty)" and
// every byte outside ' '..'~' as '@'. rowsort sorts the rows and
// valuesort every value, both by byte order of the rendered text. A
// query with a label must give the same MD5 as every other query with
// that label.
//
// Run(ctx, db, name, script) runs one script on a fresh DB and returns
// its Report: records passed, failed (each with its line and why) and
// skipped.
package slt
