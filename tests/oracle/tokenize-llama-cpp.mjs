// llama.cpp's tokenizer (node-llama-cpp, vocab-only load) on each string of a JSON corpus:
// prints a JSON array of id lists, special tokens parsed, no BOS added.
//   node tokenize-llama-cpp.mjs MODEL.gguf CORPUS.json
import { readFileSync } from "node:fs";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";

const [modelPath, corpusPath] = process.argv.slice(2);
const llama = await getLlama({ gpu: false, build: "never", usePrebuiltBinaries: true, skipDownload: true,
                               logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath, vocabOnly: true });
const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
console.log(JSON.stringify(corpus.map((text) => Array.from(model.tokenize(text, true)))));
await model.dispose();
await llama.dispose();
