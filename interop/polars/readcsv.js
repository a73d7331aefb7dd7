// readcsv.js FILE: reads a CSV file with polars, NULL and null as null
// values besides the empty field (polars' default), dates parsed, and
// prints one JSON line as read.js does (rows, and per column its null
// count, distinct count and (integer columns) sum), plus each column's
// type and every row.
const pl = require('nodejs-polars');

const path = process.argv[2];
const df = pl.readCSV(path, { nullValues: ['NULL', 'null'], tryParseDates: true });
const cols = {}, types = {};
for (const name of df.columns) {
  const s = df.getColumn(name);
  const c = { nulls: s.nullCount(), distinct: s.nUnique() };
  if (String(s.dtype.variant).startsWith('Int')) c.sum = BigInt(s.sum()).toString();
  cols[name] = c;
  types[name] = String(s.dtype.variant);
}
console.log(JSON.stringify({ path, rows: df.height, cols, types, records: df.toRecords() }));
