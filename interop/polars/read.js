// read.js FILE...: reads each Arrow IPC file or stream with polars and
// prints one JSON line per file: rows, and per column its null count,
// distinct count and (integer columns) sum.
// write.js is its twin for the other direction.
const pl = require('nodejs-polars');
const fs = require('fs');

for (const path of process.argv.slice(2)) {
  const bytes = fs.readFileSync(path);
  const df = path.endsWith('.arrows') ? pl.readIPCStream(bytes) : pl.readIPC(bytes);
  const cols = {};
  for (const name of df.columns) {
    const s = df.getColumn(name);
    const c = { nulls: s.nullCount(), distinct: s.nUnique() };
    if (String(s.dtype.variant).startsWith('Int')) c.sum = BigInt(s.sum()).toString();
    cols[name] = c;
  }
  console.log(JSON.stringify({ path, rows: df.height, cols }));
}
