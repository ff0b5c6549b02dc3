// Runs a GGUF model in llama.cpp (node-llama-cpp, CPU) from given token ids and prints, as one
// JSON line, the greedy continuation and the next-token probabilities at the last prompt
// position (llama.cpp's API exposes probabilities, not raw logits).
//   node greedy.mjs MODEL.gguf '[256,72,101]' N
//   node greedy.mjs --batch REQUESTS.json   ([{"model", "tokens", "count"}, ...]: one line each,
//                                           in order; node's and llama.cpp's start-up paid once)
// Exact attention (no flash attention, an f32 KV cache), as vt's: llama.cpp's CPU flash
// attention rounds the queries and value sums to f16, and the 8-bit rounding of a quantized
// matmul's activations turns that into whole quanta (specs/quantized.md).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

import {readFileSync} from "node:fs";

const llama = await getLlama({gpu: false, build: "never", usePrebuiltBinaries: true, skipDownload: true,
                              logLevel: LlamaLogLevel.error});

async function greedy(modelPath, promptTokens, count) {
  const model = await llama.loadModel({modelPath});
  // One thread: ctest runs two tests at once on 2 cores, and ggml's threads spin at each
  // barrier, so two of them took 3-4x longer beside another test (one row's sums are one
  // thread's either way: the numbers are the same).
  const context = await model.createContext({contextSize: 1024, batchSize: 512, threads: 1, flashAttention: false,
                                              experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32"});
  const sequence = context.getSequence();
  const tokens = [];
  let probabilities = null;
  for await (const step of sequence.evaluateWithMetadata(promptTokens, {probabilities: true}, {temperature: 0})) {
    if (probabilities === null) {
      probabilities = new Array(model.tokens.length ?? 0).fill(0);
      for (const [token, p] of step.probabilities) probabilities[token] = p;
    }
    tokens.push(step.token);
    if (tokens.length >= Number(count)) break;
  }
  await context.dispose();
  await model.dispose();
  return {tokens, probabilities, release: llama.llamaCppRelease.release};
}

const args = process.argv.slice(2);
if (args[0] === "--batch") {
  for (const request of JSON.parse(readFileSync(args[1], "utf8"))) {
    console.log(JSON.stringify(await greedy(request.model, request.tokens, request.count)));
  }
} else {
  console.log(JSON.stringify(await greedy(args[0], JSON.parse(args[1]), args[2])));
}
await llama.dispose();
