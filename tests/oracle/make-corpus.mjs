// Writes tokenizer-corpus.json: hand-picked texts (prose, CJK, Hangul, emoji with ZWJ and skin
// tones, code, whitespace runs, numbers, contractions, decomposed accents, the special tokens of
// each pinned vocabulary) and 400 seeded mixes of the same ingredients, which find the corners
// hand-picked texts miss. Deterministic: rerun it and the file does not change.
//   node make-corpus.mjs > tokenizer-corpus.json
const picked = [
  "Hello world! 12345 日本語 🙂  x",
  "The quick brown fox jumps over the lazy dog.",
  "  leading spaces and trailing   ",
  "tabs\tand\nnewlines\n\n\nend",
  "int main() {\n    return 0;\n}\n",
  "def f(x):\n\tif x > 0:\n\t\treturn x ** 2  # square\n",
  "I'm sure they've said we'd go, isn't it? DON'T SHOUT, YOU'LL SEE",
  "3.14159 1234567890 1,000,000 -42 0x1F 1e-9 ١٢٣ ½ Ⅻ",
  "中文测试：你好，世界！これは日本語のテキストです。한국어 텍스트",
  "emoji 👍🏽 family 👨‍👩‍👧‍👦 flags 🇯🇵🇫🇷 keycap 1️⃣",
  "ünïcödé çàfé naïve Ωμέγα Привет мир שלום مرحبا",
  "decomposed: cafe\u0301 vs café",
  "\u00a0non-breaking\u3000ideographic\u2009thin space",
  "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>",
  "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
  "<s>[INST] question [/INST] answer</s>",
  "<start_of_turn>user\nhello<end_of_turn>\n<start_of_turn>model\n",
  "https://example.com/path?q=1&r=two#frag user@example.org",
  "{\"key\": [1, 2, 3], \"nested\": {\"a\": null}}",
  "    four spaces\n        eight spaces\n\t\ttwo tabs",
  "a\n\n\n\n\n\n\n\n\n\nb", "x" + " ".repeat(40) + "y", "-".repeat(70), "=".repeat(33) + "\n",
  "", " ", "\n", "!!!???...",
];
const pool = [" ", "  ", "\n", "\t", "\r\n", "a", "Z", "hello", " world", "'s", "'LL", "123", "4567", "3.5", ",", ".",
  "!", "?", "...", "->", "==", "{", "}", "()", "<|", "|>", "<s>", "</s>", "<|im_start|>", "<|eot_id|>",
  "<start_of_turn>", "<think>", "日本", "語", "中文", "한국", "🙂", "👍🏽", "👨‍👩‍👧", "é", "e\u0301", "ß", "Ω",
  "Привет", "\u00a0", "\u3000", "\u200b", "\ufeff", "▁", "__init__", "snake_case", "CamelCase",
  "https://x.y/z?q=1", "#include <x>", "\\n", "\"quoted\"", "  \n  ", "0x7F", "١٢٣", "Ⅻ", "½"];
let seed = 12345;
const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296;
const mixes = [];
for (let i = 0; i < 400; ++i) {
  let text = "";
  for (let n = 1 + Math.floor(next() * 12); n > 0; --n) text += pool[Math.floor(next() * pool.length)];
  mixes.push(text);
}
console.log(JSON.stringify([...picked, ...mixes], null, 0));
