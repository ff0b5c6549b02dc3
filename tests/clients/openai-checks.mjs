// vt-serve as real clients call it: the official openai package and the AI SDK, each check one
// claim. Usage: node openai-checks.mjs BASE_URL CHECK   (prints what it saw; exit 1 on a failure)
// The model is a random-weight fixture: its text means nothing, so each check asserts the shape
// of the answer, and every constrained output is validated by ajv against its own schema.
import OpenAI from "openai";
import { zodResponseFormat, zodTextFormat } from "openai/helpers/zod";
import { z } from "zod";
import Ajv from "ajv";
import { generateText, generateObject, streamText, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";

const [baseURL, check] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: "unused", maxRetries: 0 });
const ajv = new Ajv({ strict: false });
const messages = [{ role: "user", content: "Hello" }];

function fail(message) {
  console.error(`${check}: ${message}`);
  process.exit(1);
}
function expect(condition, message) {
  if (!condition) fail(message);
}
function validates(schema, value, what) {
  const validate = ajv.compile(schema);
  expect(validate(value), `${what} does not validate: ${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`);
}

const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string", maxLength: 12 }, unit: { type: "string", enum: ["c", "f"] } },
      required: ["city", "unit"],
      additionalProperties: false,
    },
  },
};

const checks = {
  // chat.completions.create, whole and streamed: the same text for the same seed.
  async chat() {
    const whole = await client.chat.completions.create({ model: "tiny", messages, max_tokens: 8, seed: 4 });
    expect(whole.choices[0].message.role === "assistant", "no assistant message");
    expect(whole.usage.completion_tokens > 0, "no usage");
    const stream = await client.chat.completions.create({
      model: "tiny", messages, max_tokens: 8, seed: 4, stream: true, stream_options: { include_usage: true },
    });
    let text = "", usage = null;
    for await (const chunk of stream) {
      if (chunk.choices.length) text += chunk.choices[0].delta.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text === whole.choices[0].message.content, `streamed ${JSON.stringify(text)} != ${JSON.stringify(whole.choices[0].message.content)}`);
    expect(usage && usage.completion_tokens === whole.usage.completion_tokens, "the streamed usage differs");
    return { text };
  },

  // chat.completions.parse with a zod schema: the SDK parses and checks the message itself.
  async parse() {
    // A name by a pattern, not .max(): zod counts UTF-16 units where JSON Schema counts characters.
    const Person = z.object({ name: z.string().regex(/^[A-Za-z]{1,10}$/), age: z.number().int().min(0).max(120), tags: z.array(z.enum(["a", "b"])).max(2) });
    const format = zodResponseFormat(Person, "person");
    const seen = [];
    for (const seed of [1, 2, 3]) {
      const r = await client.chat.completions.parse({ model: "tiny", messages, max_tokens: 300, seed, temperature: 1, response_format: format });
      const parsed = r.choices[0].message.parsed;
      expect(parsed !== null, `no parsed message: ${r.choices[0].message.content}`);
      validates(format.json_schema.schema, parsed, "the parsed person");
      seen.push(parsed);
    }
    return { seen };
  },

  // tools with tool_choice required: one call whose arguments are the tool's parameters; the
  // call and its result sent back are answered.
  async tools() {
    const r = await client.chat.completions.create({
      model: "tiny", messages, max_tokens: 200, seed: 5, tools: [weather], tool_choice: "required", parallel_tool_calls: false,
    });
    const message = r.choices[0].message;
    expect(r.choices[0].finish_reason === "tool_calls", `finish_reason ${r.choices[0].finish_reason}`);
    expect(message.tool_calls?.length === 1, `tool_calls: ${JSON.stringify(message.tool_calls)}`);
    const call = message.tool_calls[0];
    expect(call.function.name === "get_weather", `called ${call.function.name}`);
    validates(weather.function.parameters, JSON.parse(call.function.arguments), "the arguments");
    const next = await client.chat.completions.create({
      model: "tiny", max_tokens: 4, tools: [weather],
      messages: [...messages, message, { role: "tool", tool_call_id: call.id, content: "-3 degrees" }],
    });
    expect(next.choices[0].message.role === "assistant", "the tool's result was not answered");
    return { call };
  },

  // logprobs with top_logprobs: one entry per generated token, each with its alternatives.
  async logprobs() {
    const r = await client.chat.completions.create({ model: "tiny", messages, max_tokens: 6, temperature: 0, logprobs: true, top_logprobs: 3 });
    const content = r.choices[0].logprobs.content;
    expect(content.length === r.usage.completion_tokens, `${content.length} entries for ${r.usage.completion_tokens} tokens`);
    for (const t of content) {
      expect(t.top_logprobs.length === 3 && t.top_logprobs[0].logprob === t.logprob && t.logprob <= 0, `entry ${JSON.stringify(t)}`);
    }
    return { tokens: content.length };
  },

  // responses.create, whole and streamed: output_text, and the deltas that make it.
  async responses() {
    const whole = await client.responses.create({ model: "tiny", input: "Hello", instructions: "Be brief", max_output_tokens: 8 });
    expect(whole.object === "response" && ["completed", "incomplete"].includes(whole.status), `status ${whole.status}`);
    expect(typeof whole.output_text === "string" && whole.usage.output_tokens > 0, `output ${JSON.stringify(whole.output)}`);
    const stream = await client.responses.create({ model: "tiny", input: "Hello", max_output_tokens: 8, stream: true });
    let deltas = "", final = null;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") deltas += event.delta;
      if (event.type === "response.completed" || event.type === "response.incomplete") final = event.response;
    }
    expect(final !== null, "no response.completed or response.incomplete event");
    expect(deltas === final.output[0].content[0].text, `deltas ${JSON.stringify(deltas)} != the final text`);
    return { text: whole.output_text };
  },

  // responses.parse with a zod text format, and a required function call.
  async "responses-structured"() {
    const Reply = z.object({ answer: z.enum(["yes", "no"]), confidence: z.number().int().min(0).max(100) });
    const parsed = await client.responses.parse({ model: "tiny", input: "Sure?", max_output_tokens: 100, text: { format: zodTextFormat(Reply, "reply") } });
    expect(Reply.safeParse(parsed.output_parsed).success, `output_parsed ${JSON.stringify(parsed.output_parsed)}`);
    const flat = { type: "function", ...weather.function };
    const called = await client.responses.create({ model: "tiny", input: "Weather?", max_output_tokens: 200, tools: [flat], tool_choice: "required", parallel_tool_calls: false });
    const call = called.output.find((item) => item.type === "function_call");
    expect(call && call.name === "get_weather", `output ${JSON.stringify(called.output)}`);
    validates(weather.function.parameters, JSON.parse(call.arguments), "the call's arguments");
    const answered = await client.responses.create({
      model: "tiny", max_output_tokens: 4, tools: [flat],
      input: [{ role: "user", content: "Weather?" }, call, { type: "function_call_output", call_id: call.call_id, output: "-3" }],
    });
    expect(answered.object === "response", "the call's output was not answered");
    return { parsed: parsed.output_parsed, call };
  },

  // embeddings.create (the client asks for base64 and decodes it): a unit vector per input.
  async embeddings() {
    const r = await client.embeddings.create({ model: "tiny", input: ["Hello", "Bye"] });
    expect(r.data.length === 2 && r.data[1].index === 1, `data ${JSON.stringify(r.data.map((d) => d.index))}`);
    for (const d of r.data) {
      const norm = Math.sqrt(d.embedding.reduce((s, v) => s + v * v, 0));
      expect(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
    }
    const floats = await client.embeddings.create({ model: "tiny", input: "Hello", encoding_format: "float" });
    expect(JSON.stringify(floats.data[0].embedding) === JSON.stringify(r.data[0].embedding), "base64 and float differ");
    return { width: r.data[0].embedding.length };
  },

  // The AI SDK's generateText and streamText over the OpenAI-compatible provider.
  async "ai-text"() {
    const provider = createOpenAICompatible({ name: "vt", baseURL });
    const r = await generateText({ model: provider("tiny"), prompt: "Hello", maxOutputTokens: 8, seed: 2 });
    expect(typeof r.text === "string" && r.usage.outputTokens > 0, `generateText: ${JSON.stringify(r.usage)}`);
    const s = streamText({ model: provider("tiny"), prompt: "Hello", maxOutputTokens: 8, seed: 2 });
    let text = "";
    for await (const part of s.textStream) text += part;
    expect(text === r.text, `streamText ${JSON.stringify(text)} != generateText ${JSON.stringify(r.text)}`);
    return { text };
  },

  // The AI SDK's generateObject: a json_schema response_format, the object checked by zod.
  async "ai-object"() {
    const provider = createOpenAICompatible({ name: "vt", baseURL, supportsStructuredOutputs: true });
    const schema = z.object({ city: z.enum(["Oslo", "Lima", "Rome"]), days: z.number().int().min(1).max(7), ok: z.boolean(), note: z.string().regex(/^[a-z ]{0,12}$/) });
    const r = await generateObject({ model: provider("tiny"), schema, prompt: "Forecast", maxOutputTokens: 200, seed: 3 });
    expect(schema.safeParse(r.object).success, `object ${JSON.stringify(r.object)}`);
    return { object: r.object };
  },

  // The AI SDK's own OpenAI provider, whose models speak the Responses API: text whole and
  // streamed (greedy: the Responses API has no seed), an object, a required tool call.
  async "ai-openai"() {
    const openai = createOpenAI({ baseURL, apiKey: "none" });
    const r = await generateText({ model: openai("tiny"), prompt: "Hello", maxOutputTokens: 8, temperature: 0 });
    expect(typeof r.text === "string" && r.usage.outputTokens > 0, `generateText: ${JSON.stringify(r.usage)}`);
    const s = streamText({ model: openai("tiny"), prompt: "Hello", maxOutputTokens: 8, temperature: 0 });
    let text = "";
    for await (const part of s.textStream) text += part;
    expect(text === r.text, `streamText ${JSON.stringify(text)} != generateText ${JSON.stringify(r.text)}`);
    const schema = z.object({ city: z.enum(["Oslo", "Lima"]), days: z.number().int().min(1).max(7) });
    const o = await generateObject({ model: openai("tiny"), schema, prompt: "Forecast", maxOutputTokens: 100, temperature: 0 });
    expect(schema.safeParse(o.object).success, `object ${JSON.stringify(o.object)}`);
    const weather = tool({ description: "The weather in a city", inputSchema: z.object({ city: z.string().max(12) }) });
    const called = await generateText({ model: openai("tiny"), prompt: "Weather in Oslo?", tools: { get_weather: weather },
                                        toolChoice: "required", maxOutputTokens: 200, temperature: 0,
                                        providerOptions: { openai: { parallelToolCalls: false } } });  // one call: a random model would go on
    expect(called.toolCalls.length >= 1 && called.toolCalls[0].toolName === "get_weather", `calls ${JSON.stringify(called.toolCalls)}`);
    expect(typeof called.toolCalls[0].input.city === "string", `input ${JSON.stringify(called.toolCalls[0].input)}`);
    return { text, object: o.object, call: called.toolCalls[0].input };
  },
};

if (!checks[check]) fail(`no such check; the checks: ${Object.keys(checks).join(", ")}`);
try {
  console.log(JSON.stringify(await checks[check]()));
} catch (error) {
  fail(`${error.constructor.name}: ${error.message}${error.error ? " " + JSON.stringify(error.error) : ""}`);
}
