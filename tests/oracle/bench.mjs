// llama.cpp's speed on a GGUF, measured the way vt-run measures: prompt tokens/s for a
// 512-token prompt (through the first sampled token), then decode tokens/s for the rest.
//   node bench.mjs MODEL.gguf THREADS DECODE_TOKENS
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [modelPath, threads, count] = process.argv.slice(2);
const llama = await getLlama({gpu: false, build: "never", usePrebuiltBinaries: true, skipDownload: true,
                              logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath});
const context = await model.createContext({contextSize: 1024, batchSize: 512, threads: Number(threads)});
const sequence = context.getSequence();
const prompt = [256, ...Array(511).fill(97)];
const start = performance.now();
let first = 0, n = 0;
for await (const token of sequence.evaluate(prompt, {temperature: 0})) {
  if (n++ === 0) first = performance.now();
  if (n >= Number(count)) break;
}
const end = performance.now();
console.log(JSON.stringify({prompt_tokens_per_s: prompt.length / ((first - start) / 1000),
                            decode_tokens_per_s: (n - 1) / ((end - first) / 1000),
                            cpu: llama.systemInfo.split("|").slice(0, 4).join("|").trim()}));
await context.dispose();
await model.dispose();
await llama.dispose();
