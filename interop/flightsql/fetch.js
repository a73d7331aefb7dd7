// fetch.js CLIENT HOST PORT SQL: runs SQL on a Flight SQL server with a
// client no one in quiver wrote and prints what it decoded, for
// flightsql_test.go to compare with the rows it expects.
//
// CLIENT is
//   rs  @lakehouse-rs/flight-sql-client: arrow-rs's FlightSqlServiceClient
//       (Rust, through napi). It runs the query as a prepared statement,
//       decodes the stream in Rust and hands back the batches re-encoded as
//       an uncompressed Arrow IPC stream, read here with Arrow JS.
//   ts  @firetiger-oss/flight-sql-client: TypeScript over grpc-js. It runs a
//       CommandStatementQuery and decodes the stream with Arrow JS, which
//       decompresses IPC bodies with the codecs in its compressionRegistry:
//       we register two independent pure-JS decoders, lz4js (LZ4 frame) and
//       fzstd (zstd), so the bytes are checked by code that shares nothing
//       with quiver's Go codecs.
//
// The bearer token, if any, comes from the environment (QUIVER_TOKEN), not
// the command line, where other users of the machine could read it.
//
// Output, on success: one JSON line describing the result
//   {"client", "version", "schema": [{name, type, nullable}], "batches": [rows…], "rows"}
// then one JSON array per row, each cell a string or null:
//   Int64    decimal digits          Float64  16 hex digits of the IEEE bits
//   Utf8     the string              Date32   days since 1970-01-01
//   Decimal  the unscaled integer    Bool     "true" / "false"
// Exact text, so the Go side compares without tolerances. On failure the
// error goes to stderr and the exit code is 2.
'use strict';

const fs = require('fs');
const path = require('path');
const arrow = require('apache-arrow');

const [clientName, host, port, sql] = process.argv.slice(2);
const token = process.env.QUIVER_TOKEN || '';

async function fetchRS() {
  const rs = require('@lakehouse-rs/flight-sql-client');
  const client = await rs.createFlightSqlClient({
    host, port: Number(port), tls: false, headers: [],
    ...(token ? { token } : {}),
  });
  const ipc = await client.query(sql);
  return {
    version: `${version('@lakehouse-rs/flight-sql-client')} (crate ${rs.rustCrateVersion()}; apache-arrow ${version('apache-arrow')} reads its output)`,
    table: arrow.tableFromIPC(ipc),
  };
}

async function fetchTS() {
  // The client must decode with the same Arrow JS module we register
  // codecs in; a second copy of apache-arrow would have its own registry.
  const clientArrow = require.resolve('apache-arrow', { paths: [require.resolve('@firetiger-oss/flight-sql-client')] });
  if (clientArrow !== require.resolve('apache-arrow')) {
    throw new Error(`two copies of apache-arrow: ${clientArrow} and ${require.resolve('apache-arrow')}`);
  }
  const lz4 = require('lz4js');
  const fzstd = require('fzstd');
  // Arrow JS views decoded buffers as typed arrays in place, and a
  // BigInt64Array must start at a multiple of 8 bytes: fzstd returns views
  // 12 bytes into its buffer, so output off that alignment is copied.
  const aligned = (out) => (out.byteOffset % 8 === 0 ? out : out.slice());
  arrow.compressionRegistry.set(arrow.CompressionType.LZ4_FRAME, { decode: (b) => aligned(lz4.decompress(b)) });
  arrow.compressionRegistry.set(arrow.CompressionType.ZSTD, { decode: (b) => aligned(fzstd.decompress(b)) });

  const { FlightSQLClient } = require('@firetiger-oss/flight-sql-client');
  const client = new FlightSQLClient({ host, port: Number(port), plaintext: true });
  // Its token option first sends a Handshake and waits for a reply
  // message; quiver, like arrow-go's base server, ends the Handshake with
  // none, so the client would wait forever. The token is then sent the
  // way the client itself sends it on every call: in the call metadata.
  if (token) client.metadata.add('authorization', `Bearer ${token}`);
  try {
    const table = await client.execute(sql);
    return {
      version: `${version('@firetiger-oss/flight-sql-client')} (apache-arrow ${version('apache-arrow')}, lz4js ${version('lz4js')}, fzstd ${version('fzstd')})`,
      table,
    };
  } finally {
    await client.close();
  }
}

// version reads an installed package's version (not every package exports
// its package.json to require).
function version(name) {
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', name, 'package.json'), 'utf8')).version;
}

const f64 = new DataView(new ArrayBuffer(8));

// cell renders one value as described at the top.
function cell(type, vec, i) {
  if (!vec.isValid(i)) return null;
  switch (type.typeId) {
    case arrow.Type.Int:
      return String(vec.get(i));
    case arrow.Type.Float:
      f64.setFloat64(0, vec.get(i), true);
      return f64.getBigUint64(0, true).toString(16).padStart(16, '0');
    case arrow.Type.Utf8:
      return vec.get(i);
    case arrow.Type.Bool:
      return String(vec.get(i));
    case arrow.Type.Date: {
      // get() converts days to milliseconds; the stored days are exact.
      const [chunk, j] = locate(vec, i);
      return String(chunk.values[chunk.offset + j]);
    }
    case arrow.Type.Decimal: {
      // get() has no scale-aware text form; read the four little-endian
      // 32-bit words of the two's-complement 128-bit value.
      const [chunk, j] = locate(vec, i);
      const w = chunk.values.subarray((chunk.offset + j) * 4, (chunk.offset + j) * 4 + 4);
      let v = 0n;
      for (let k = 3; k >= 0; k--) v = (v << 32n) | BigInt(w[k]);
      if (v >= 1n << 127n) v -= 1n << 128n;
      return v.toString();
    }
    default:
      throw new Error(`no rendering for type ${type}`);
  }
}

// locate finds the Data chunk of vec that holds row i.
function locate(vec, i) {
  for (const d of vec.data) {
    if (i < d.length) return [d, i];
    i -= d.length;
  }
  throw new Error(`row ${i} past the end`);
}

async function main() {
  const got = clientName === 'rs' ? await fetchRS() : clientName === 'ts' ? await fetchTS() : null;
  if (!got) throw new Error(`unknown client ${clientName}: want rs or ts`);
  const { table } = got;
  const fields = table.schema.fields;
  const out = [JSON.stringify({
    client: clientName,
    version: got.version,
    schema: fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable })),
    batches: table.batches.map((b) => b.numRows),
    rows: table.numRows,
  })];
  const cols = fields.map((f, c) => table.getChildAt(c));
  for (let i = 0; i < table.numRows; i++) {
    out.push(JSON.stringify(fields.map((f, c) => cell(f.type, cols[c], i))));
  }
  process.stdout.write(out.join('\n') + '\n');
}

main().catch((err) => {
  // The code is where the clients keep the gRPC status: the ts client
  // replaces an UNAUTHENTICATED status's message with its own.
  process.stderr.write(`${err && err.code ? `[code ${err.code}] ` : ''}${err && err.stack ? err.stack : err}\n`);
  process.exit(2);
});
