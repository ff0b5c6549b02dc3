// Prints one observed version for records/llama-cpp-oracle.json:
//   node version.mjs npm      the node-llama-cpp distribution's own package version
//   node version.mjs runtime  the llama.cpp release the loaded library reports
//   node version.mjs cpu      which CPU build of llama.cpp was loaded (for benchmarks)
import {readFileSync} from "node:fs";
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const what = process.argv[2];
if (what === "npm") {
  // The package does not export its package.json: read the installed copy directly.
  const path = new URL("./node_modules/node-llama-cpp/package.json", import.meta.url);
  console.log(JSON.parse(readFileSync(path, "utf8")).version);
} else if (what === "runtime" || what === "cpu") {
  const llama = await getLlama({gpu: false, build: "never", usePrebuiltBinaries: true, skipDownload: true,
                                logLevel: LlamaLogLevel.error});
  console.log(what === "runtime" ? llama.llamaCppRelease.release : llama.systemInfo);
  await llama.dispose();
} else {
  console.error("usage: node version.mjs npm|runtime|cpu");
  process.exit(2);
}
