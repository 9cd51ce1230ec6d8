// The Node clients' checks, run by run.py (copied next to the folder's node_modules first).
// Each check prints one JSON line: client, check, ok, note.
import Anthropic from "@anthropic-ai/sdk";
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateObject, generateText, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";

const URL = process.env.COURSE_MODEL_URL;
const MODEL = process.env.CLIENT_MODEL || "claude-haiku-5-5";
const ONLY = process.env.ONLY || "";
const CONTACT_TEXT = "Add a contact: Ada Lovelace, ada@example.com.";
const WEATHER_TEXT = "Paris, 18 C and sunny. Give me the weather report as data.";
const weather = (city) => JSON.stringify({ city, temperature_c: 18, conditions: "sunny" });
const CONTACT_TOOL = {
  name: "add_contact",
  description: "Add a person to the address book.",
  input_schema: {
    type: "object",
    properties: { name: { type: "string" }, email: { type: "string" } },
    required: ["name", "email"],
  },
};
const WEATHER_TOOL = {
  name: "get_weather",
  description: "Current weather for a city.",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

async function run(client, check, fn) {
  if (ONLY && !client.includes(ONLY)) return;
  let ok = false;
  let note = "";
  try {
    [ok, note] = await fn({ "x-check": `${client}:${check}` });
  } catch (error) {
    note = `${error.name}: ${error.message}`;
  }
  const shown = typeof note === "string" ? note : JSON.stringify(note);
  console.log(JSON.stringify({ client, check, ok: Boolean(ok), note: String(shown).slice(0, 300) }));
}

const textOf = (r) => r.content.filter((b) => b.type === "text").map((b) => b.text).join("");

async function sdkChecks() {
  const make = (h) => new Anthropic({ baseURL: URL, apiKey: "sk-offline", defaultHeaders: h });
  const name = "anthropic-ts";
  await run(name, "plain", async (h) => {
    const r = await make(h).messages.create({
      model: MODEL, max_tokens: 200, messages: [{ role: "user", content: "What is 2+2?" }],
    });
    return [textOf(r).includes("4"), textOf(r)];
  });
  await run(name, "tool_name", async (h) => {
    const r = await make(h).messages.create({
      model: MODEL, max_tokens: 300, tools: [CONTACT_TOOL],
      tool_choice: { type: "tool", name: "add_contact" },
      messages: [{ role: "user", content: CONTACT_TEXT }],
    });
    const call = r.content.find((b) => b.type === "tool_use");
    return [call.input.name === "Ada Lovelace", call.input];
  });
  await run(name, "stream", async (h) => {
    const s = make(h).messages.stream({
      model: MODEL, max_tokens: 200,
      messages: [{ role: "user", content: "Say hello in one short sentence." }],
    });
    const final = await s.finalMessage();
    return [final.stop_reason === "end_turn" && textOf(final).length > 0, textOf(final)];
  });
  const loop = (systemAfter) => async (h) => {
    const client = make(h);
    const messages = [{ role: "user", content: "What's the weather in Paris and in Tokyo?" }];
    for (let turn = 0; turn < 6; turn++) {
      const r = await client.messages.create({
        model: MODEL, max_tokens: 400, tools: [WEATHER_TOOL], messages,
      });
      if (r.stop_reason !== "tool_use") {
        const said = textOf(r);
        return [said.includes("Paris") && said.includes("Tokyo"), said];
      }
      messages.push({ role: "assistant", content: r.content });
      messages.push({
        role: "user",
        content: r.content.filter((b) => b.type === "tool_use").map((b) => ({
          type: "tool_result", tool_use_id: b.id, content: weather(b.input.city),
        })),
      });
      if (systemAfter) messages.push({ role: "system", content: "<total_tokens>99</total_tokens>" });
    }
    return [false, "no answer after 6 turns"];
  };
  await run(name, "tool_loop", loop(false));
  await run(name, "system_after_results", loop(true));
}

async function aiSdkChecks() {
  const model = (h) => createAnthropic({ baseURL: `${URL}/v1`, apiKey: "sk-offline", headers: h })(MODEL);
  const name = "ai-sdk";
  await run(name, "plain", async (h) => {
    const r = await generateText({ model: model(h), prompt: "What is 2+2?" });
    return [r.text.includes("4"), r.text];
  });
  const added = [];
  const addContact = tool({
    description: "Add a person to the address book.",
    inputSchema: z.object({ name: z.string(), email: z.string() }),
    execute: async ({ name }) => { added.push(name); return `added ${name}`; },
  });
  await run(name, "tool_name", async (h) => {
    const r = await generateText({
      model: model(h), prompt: CONTACT_TEXT, tools: { add_contact: addContact },
      toolChoice: { type: "tool", toolName: "add_contact" },
    });
    return [added.includes("Ada Lovelace"), added];
  });
  await run(name, "stream", async (h) => {
    const r = streamText({ model: model(h), prompt: "Say hello in one short sentence." });
    let text = "";
    for await (const part of r.textStream) text += part;
    return [text.length > 0, text];
  });
  await run(name, "structured", async (h) => {
    const r = await generateObject({
      model: model(h), prompt: WEATHER_TEXT,
      schema: z.object({ city: z.string(), temperature_c: z.number(), summary: z.string() }),
    });
    return [r.object.city === "Paris" && r.object.temperature_c === 18, r.object];
  });
  await run(name, "tool_loop", async (h) => {
    const r = await generateText({
      model: model(h), prompt: "What's the weather in Paris and in Tokyo?", stopWhen: stepCountIs(6),
      tools: {
        get_weather: tool({
          description: "Current weather for a city.",
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => weather(city),
        }),
      },
    });
    return [r.text.includes("Paris") && r.text.includes("Tokyo"), `${r.steps.length} steps: ${r.text}`];
  });
}

await sdkChecks();
await aiSdkChecks();
