// Runs a GGUF model in llama.cpp (node-llama-cpp, CPU) from given token ids and prints, as one
// JSON line, the greedy continuation and the next-token probabilities at the last prompt
// position (llama.cpp's API exposes probabilities, not raw logits).
//   node greedy.mjs MODEL.gguf '[256,72,101]' N
// Exact attention (no flash attention, an f32 KV cache), as vt's: llama.cpp's CPU flash
// attention rounds the queries and value sums to f16, and the 8-bit rounding of a quantized
// matmul's activations turns that into whole quanta (specs/quantized.md).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [modelPath, tokensJson, count] = process.argv.slice(2);
const llama = await getLlama({gpu: false, build: "never", usePrebuiltBinaries: true, skipDownload: true,
                              logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath});
const context = await model.createContext({contextSize: 1024, batchSize: 512, threads: 2, flashAttention: false,
                                            experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32"});
const sequence = context.getSequence();
const tokens = [];
let probabilities = null;
for await (const step of sequence.evaluateWithMetadata(JSON.parse(tokensJson), {probabilities: true}, {temperature: 0})) {
  if (probabilities === null) {
    probabilities = new Array(model.tokens.length ?? 0).fill(0);
    for (const [token, p] of step.probabilities) probabilities[token] = p;
  }
  tokens.push(step.token);
  if (tokens.length >= Number(count)) break;
}
console.log(JSON.stringify({tokens, probabilities, release: llama.llamaCppRelease.release}));
await context.dispose();
await model.dispose();
await llama.dispose();
