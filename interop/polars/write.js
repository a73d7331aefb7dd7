// write.js DIR: polars writes the same small frame as IPC files with each
// of its codecs, for quiver to read.
const pl = require('nodejs-polars');
const path = require('path');

const n = 20000;
const ids = [], names = [];
for (let i = 0; i < n; i++) {
  ids.push(i % 7 === 0 ? null : i * 3);
  names.push(i % 5 === 0 ? null : 'name_' + (i % 1234));
}
const df = pl.DataFrame({ id: pl.Series('id', ids, pl.Int64), name: pl.Series('name', names, pl.Utf8) });
for (const compression of ['uncompressed', 'lz4', 'zstd']) {
  df.writeIPC(path.join(process.argv[2], 'polars_' + compression + '.arrow'), { compression });
}
