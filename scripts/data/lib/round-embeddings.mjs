// Write the first N rows of a GloVe text file to stdout, each value rounded to D decimals and
// written compactly (0.05, -0.123, 0; no trailing zeros, no -0). Rows whose word contains
// whitespace are skipped (and counted), so N valid rows are written if the input has them.
// Usage: node round-embeddings.mjs <glove.txt> <N> [D=3]
import fs from 'node:fs';
import readline from 'node:readline';
import { once } from 'node:events';

const [path, nArg, dArg = '3'] = process.argv.slice(2);
const N = Number(nArg), D = Number(dArg), SCALE = 10 ** D;
if (!path || !(N > 0) || !(D >= 0 && D <= 8)) { console.error('usage: round-embeddings.mjs <glove.txt> <N> [D]'); process.exit(2); }

// Round the decimal *text* half away from zero (like BigDecimal HALF_UP): going through the
// binary double would round ties such as "0.1235" down and "0.1245" up, depending on the
// binary representation.
function round(s) {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(s);
  let sign, k;
  if (m) {
    const frac = m[3] ?? '';
    sign = m[1];
    k = Number(m[2] + frac.padEnd(D, '0').slice(0, D));  // |value| * 10^D, truncated
    if (frac.length > D && frac[D] >= '5') k++;
  } else {  // exponent form, e.g. -7.0514e-7 (tiny values only): no ties possible at D digits
    const x = Number(s);
    if (!Number.isFinite(x)) throw new Error(`bad number ${JSON.stringify(s)}`);
    sign = x < 0 ? '-' : '';
    k = Math.round(Math.abs(x) * SCALE);
  }
  // k / 10^D prints in JS's shortest form, i.e. exactly the D-digit decimal minus trailing zeros.
  return k === 0 ? '0' : sign + String(k / SCALE);
}

const rl = readline.createInterface({ input: fs.createReadStream(path), crlfDelay: Infinity });
let kept = 0, skipped = 0, dims = -1, buf = [];
const flush = async () => { if (!process.stdout.write(buf.join(''))) await once(process.stdout, 'drain'); buf = []; };
for await (const line of rl) {
  const f = line.split(' ');
  if (dims < 0) dims = f.length - 1;
  if (f.length - 1 !== dims) throw new Error(`line ${kept + skipped + 1}: ${f.length - 1} values, expected ${dims}`);
  if (f[0] === '' || /\s/.test(f[0])) { skipped++; continue; }
  buf.push(f[0] + ' ' + f.slice(1).map(round).join(' ') + '\n');
  if (++kept === N) break;
  if (buf.length === 5000) await flush();
}
rl.close();
await flush();
console.error(`[round] wrote ${kept} words x ${dims} dims (${D} decimals); skipped ${skipped} with whitespace`);
if (kept < N) console.error(`[round] WARNING: input has only ${kept} usable words, fewer than N=${N}`);
